// VitePress's default theme, with the few rules of custom.css for the reference's wide tables.
import DefaultTheme from 'vitepress/theme';
import './custom.css';

export default DefaultTheme;
