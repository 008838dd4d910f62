export * from './api.js';
export * from './branding.js';
export * from './channels.js';
export * from './constants.js';
export * from './errors.js';
export * from './languages.js';
export * from './text-keys.js';
export * from './console-api.js';
