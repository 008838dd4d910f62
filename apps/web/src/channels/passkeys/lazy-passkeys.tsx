import { lazy, Suspense } from 'react';

// The person's passkeys load with their own chunk, when the page shows them: the browser's
// WebAuthn helpers and the passkey texts stay out of the page's first download.
const LazyPasskeyWay = lazy(() =>
  import('./sign-in-with-passkey').then((module) => ({ default: module.PasskeyWay })),
);
const LazyPasskeyList = lazy(() =>
  import('./passkey-list').then((module) => ({ default: module.PasskeyList })),
);

/** The passkey as one of the page's ways to sign in, loaded on demand. */
export function PasskeyWay({ onOpened }: { onOpened: () => void }) {
  return (
    <Suspense fallback={null}>
      <LazyPasskeyWay onOpened={onOpened} />
    </Suspense>
  );
}

/** The person's passkeys inside a registration session, loaded on demand. */
export function PasskeyList() {
  return (
    <Suspense fallback={null}>
      <LazyPasskeyList />
    </Suspense>
  );
}
