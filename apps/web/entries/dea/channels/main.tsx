import { startChannels } from '../../../src/channels/start-channels';

startChannels(document.getElementById('root'));
