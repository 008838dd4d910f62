import { createContext } from 'react';

/** Called when a call finds the console session gone: the console returns to the sign-in. */
export const SignedOutContext = createContext<() => void>(() => undefined);
