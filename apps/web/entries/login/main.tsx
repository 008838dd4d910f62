import { startLogin } from '../../src/login-app/start-login';

startLogin(document.getElementById('root'));
