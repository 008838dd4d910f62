// VitePress's default theme, with the few rules of custom.css for the reference's wide tables.
// Vite's client types declare what importing a stylesheet gives (the type check refuses an
// import it knows nothing of).
/// <reference types="vite/client" />
import DefaultTheme from 'vitepress/theme';
import './custom.css';

export default DefaultTheme;
