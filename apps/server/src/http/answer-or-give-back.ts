import type { FastifyReply, FastifyRequest } from 'fastify';
import { isClientGone } from './client-gone.js';

/**
 * After a verification used a code: its answer gets out, or the use is given back. When the client
 * has already gone, or the connection closes before the answer is written in full, `giveBack` runs
 * (the code works again). Answers whether the answer is still worth sending.
 */
export function answerOrGiveBack(
  request: FastifyRequest,
  reply: FastifyReply,
  giveBack: () => Promise<void>,
): boolean {
  const run = (): void => {
    giveBack().catch((error: unknown) =>
      request.log.error(
        { err: error },
        'a use of a code whose answer did not get out could not be given back',
      ),
    );
  };
  if (isClientGone(request)) {
    run();
    return false;
  }
  // 'finish': the whole answer was handed to the system; a 'close' without it: cut off before.
  let answered = false;
  reply.raw.once('finish', () => (answered = true));
  reply.raw.once('close', () => {
    if (!answered) run();
  });
  return true;
}
