import type { ConsoleReports } from '@dea/contract';
import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, refusal, renderConsole } from '../testing/render-console';
import { ReportsScreen } from './reports-screen';

const zeros = [0, 0, 0];
const REPORTS: ConsoleReports = {
  from: '2026-11-20',
  to: '2026-11-22',
  timeZone: 'Europe/Berlin',
  days: ['2026-11-20', '2026-11-21', '2026-11-22'],
  reports: [
    {
      metric: 'issued',
      breakdowns: [
        { by: 'total', rows: [{ key: 'all', counts: [1, 4, 2], total: 7 }] },
        {
          by: 'group',
          rows: [
            { key: 'Staff', counts: [1, 3, 1], total: 5 },
            { key: 'Contractors', counts: [0, 1, 1], total: 2 },
          ],
        },
        { by: 'channel', rows: [] },
      ],
    },
    { metric: 'used', breakdowns: [{ by: 'total', rows: [{ key: 'all', counts: zeros, total: 0 }] }] },
  ],
};

describe('the reports', () => {
  it("asks for the last 30 days in the viewer's time zone and draws each report with its numbers", async () => {
    const calls = fakeConsoleApi({ 'GET reports': () => envelope(REPORTS) });
    renderConsole(<ReportsScreen />);
    const issued = await screen.findByTestId('report-issued');
    expect(calls[0]?.query).toEqual({ timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone });
    expect(screen.getByTestId('reports-period')).toHaveTextContent(
      '2026-11-20 to 2026-11-22, time zone Europe/Berlin',
    );
    expect(within(issued).getByRole('heading', { name: 'Codes issued' })).toBeInTheDocument();
    expect(issued).toHaveTextContent('7 in all');
    // The chart: one picture with its summary, a bar per day.
    const chart = within(issued).getByRole('img');
    expect(chart).toHaveAccessibleName(
      'Codes issued per day, 2026-11-20 to 2026-11-22: 7 in all, at most 4 on one day',
    );
    expect(chart.querySelectorAll('rect')).toHaveLength(3);
    expect(within(issued).getByRole('list', { name: 'Codes issued by Group' })).toHaveTextContent('Staff5');
    // Its numbers: tables for screen readers, shown on demand.
    const perDay = within(issued).getByRole('table', { name: 'Codes issued per day' });
    expect(
      within(perDay)
        .getAllByRole('row')
        .map((row) => row.textContent),
    ).toEqual(['DayCount', '2026-11-201', '2026-11-214', '2026-11-222']);
    const numbers = within(issued).getByRole('button', { name: 'Show the numbers' });
    expect(numbers).toHaveAttribute('aria-expanded', 'false');
    expect(perDay.parentElement).toHaveClass('visually-hidden');
    await userEvent.click(numbers);
    expect(within(issued).getByRole('button', { name: 'Hide the numbers' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    expect(perDay.parentElement).not.toHaveClass('visually-hidden');
    expect(within(issued).getByRole('table', { name: 'Codes issued by Group' })).toHaveTextContent(
      'Contractors2',
    );
    // A breakdown without rows is left out.
    expect(within(issued).queryByRole('list', { name: 'Codes issued by Channel' })).not.toBeInTheDocument();
    expect(within(issued).getByRole('link', { name: 'CSV: Codes issued' }).getAttribute('href')).toMatch(
      /^\/dea\/admin-api\/reports\.csv\?timeZone=.+&metric=issued$/,
    );
    expect(within(screen.getByTestId('report-used')).getByRole('img')).toHaveAccessibleName(
      'Codes used per day, 2026-11-20 to 2026-11-22: 0 in all, at most 0 on one day',
    );
  });

  it('asks for the chosen period, and refuses one that ends before it begins', async () => {
    const calls = fakeConsoleApi({ 'GET reports': () => envelope(REPORTS) });
    renderConsole(<ReportsScreen />);
    await screen.findByTestId('report-issued');
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-22' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-20' } });
    await userEvent.click(screen.getByRole('button', { name: 'Show' }));
    expect(screen.getByRole('alert')).toHaveTextContent('"To" must not be before "From".');
    expect(calls).toHaveLength(1);
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-30' } });
    await userEvent.click(screen.getByRole('button', { name: 'Show' }));
    await screen.findByTestId('report-issued');
    expect(calls.at(-1)?.query).toMatchObject({ from: '2026-11-22', to: '2026-11-30' });
    expect(screen.getByRole('link', { name: 'Download all as CSV' }).getAttribute('href')).toContain(
      'from=2026-11-22&to=2026-11-30',
    );
  });

  it('names a refusal in words', async () => {
    fakeConsoleApi({ 'GET reports': () => refusal(403, 3, '') });
    renderConsole(<ReportsScreen />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent('Your role does not allow this.');
  });
});
