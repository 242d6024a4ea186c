/** The one Node API the tests use (no @types/node here): reading style/base.css. */
declare module 'fs' {
  export function readFileSync(path: string, encoding: 'utf8'): string;
}
