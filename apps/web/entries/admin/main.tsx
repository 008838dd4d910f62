import { startConsole } from '../../src/console/start-console';

startConsole(document.getElementById('root'));
