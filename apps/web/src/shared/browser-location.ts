/**
 * Leaving the page goes through this object so that tests can observe a navigation instead of
 * performing it (the test browser cannot leave its page).
 */
export const browserLocation = {
  assign: (url: string): void => {
    window.location.assign(url);
  },
  reload: (): void => {
    window.location.reload();
  },
};
