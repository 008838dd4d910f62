import { startPage } from '../../src/app/start-page';

startPage(document.getElementById('root'));
