import { PAGE_STARTUP_ELEMENT_ID, pageCallKey, type PageCall } from '@dea/contract';

/**
 * The answers the server delivered with the page's HTML for its startup calls: each
 * is taken once, for exactly the call it describes; every other call goes to the server.
 */
const answers = new Map<string, unknown>();

/** The answers of a data block's text, `undefined` when it holds no object. Throws if not JSON. */
function answersOfBlock(text: string): Record<string, unknown> | undefined {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  return parsed as Record<string, unknown>;
}

/**
 * The answers delivered with the page, read without taking them (the data block stays for the
 * page's startup): for the code asked for beside the scripts (code-on-load.ts). `undefined` when
 * there is no block or it cannot be read.
 */
export function startupAnswersInDocument(): Record<string, unknown> | undefined {
  const block = document.getElementById(PAGE_STARTUP_ELEMENT_ID);
  if (block === null) return undefined;
  try {
    return answersOfBlock(block.textContent ?? '');
  } catch {
    return undefined;
  }
}

/** Moves the answers of the page's data block, if there is one, into `answers` (once: the block goes). */
function readDataBlock(): void {
  const block = document.getElementById(PAGE_STARTUP_ELEMENT_ID);
  if (block === null) return;
  block.remove();
  try {
    for (const [key, answer] of Object.entries(answersOfBlock(block.textContent ?? '') ?? {}))
      answers.set(key, answer);
  } catch (error) {
    // The calls are made as without the block.
    console.error('The startup answers delivered with the page could not be read', error);
  }
}

/** Whether an answer for `call` came with the page (it stays until taken). */
export function hasStartupAnswer(call: PageCall): boolean {
  readDataBlock();
  return answers.has(pageCallKey(call));
}

/** The answer for `call` delivered with the page, `undefined` when none came or it was taken. */
export function takeStartupAnswer(call: PageCall): { body: unknown } | undefined {
  readDataBlock();
  const key = pageCallKey(call);
  if (!answers.has(key)) return undefined;
  const body = answers.get(key);
  answers.delete(key);
  return { body };
}

/** Drops answers not taken (tests: each starts without any). */
export function forgetStartupAnswers(): void {
  answers.clear();
}
