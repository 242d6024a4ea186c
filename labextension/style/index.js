import './base.css';
import './controls.css';
