import type { ConsoleAuditEntry } from '@dea/contract';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { envelope, fakeConsoleApi, heldAnswer, refusal, renderConsole } from '../testing/render-console';
import { AuditScreen } from './audit-screen';

const entry = (id: string, event: string, details: Record<string, unknown> = {}): ConsoleAuditEntry => ({
  id,
  at: `2026-11-24T10:00:0${id}Z`,
  event,
  userId: 'u1',
  username: 'dana',
  actor: 'hana',
  clientAddress: '2001:db8::1',
  details,
});

describe('the audit log', () => {
  it('shows a spinner, then the newest entries with their details', async () => {
    const first = heldAnswer();
    const calls = fakeConsoleApi({ 'GET audit': () => first.promise });
    renderConsole(<AuditScreen />);
    expect(screen.getByTestId('spinner')).toHaveTextContent('Loading…');
    expect(screen.getByRole('button', { name: 'Loading…' })).toBeDisabled();
    first.give(envelope({ entries: [entry('1', 'code.issued', { channel: 'screen' })], next: null }));
    const table = await screen.findByTestId('audit-table');
    expect(within(table).getAllByRole('row')).toHaveLength(2);
    expect(table).toHaveTextContent('code.issued');
    // Details are labelled fields, not JSON.
    const details = within(table).getByRole('definition');
    expect(details).toHaveTextContent('screen');
    expect(within(table).getByRole('term')).toHaveTextContent('channel');
    expect(table).not.toHaveTextContent('{"channel"');
    expect(calls.find((call) => call.path === 'audit')?.query).toEqual({ limit: '50' });
    expect(screen.queryByTestId('audit-older')).not.toBeInTheDocument();
  });

  it('says when no entry matches', async () => {
    fakeConsoleApi({ 'GET audit': () => envelope({ entries: [], next: null }) });
    renderConsole(<AuditScreen />);
    expect(await screen.findByText('No entries.')).toHaveAttribute('role', 'status');
  });

  it('names a refusal in words', async () => {
    fakeConsoleApi({ 'GET audit': () => refusal(403, 3, '') });
    renderConsole(<AuditScreen />);
    expect(await screen.findByTestId('console-error')).toHaveTextContent('Your role does not allow this.');
  });

  it('filters by an event chosen from the known ones, with the keyboard, and offers the same filters as CSV', async () => {
    const calls = fakeConsoleApi({
      'GET audit/events': () =>
        envelope({
          events: [
            { name: 'code.issued', description: 'a code was made' },
            { name: 'signin.failure', description: 'a password was refused' },
          ],
        }),
      'GET audit': (call) =>
        envelope({
          entries: call.query?.event ? [entry('2', 'signin.failure')] : [entry('1', 'code.issued')],
          next: null,
        }),
    });
    renderConsole(<AuditScreen />);
    await screen.findByTestId('audit-table');
    const events = screen.getByLabelText('Event');
    await within(events).findByRole('option', { name: 'signin.failure' });
    expect(
      within(events)
        .getAllByRole('option')
        .map((option) => option.textContent),
    ).toEqual(['Any event', 'code.issued', 'signin.failure']);
    await userEvent.selectOptions(events, 'signin.failure');
    await userEvent.type(screen.getByLabelText('User'), ' dana {Enter}');
    // While the filtered entries load, a spinner stands where the table was: wait for the new table.
    await waitFor(() =>
      expect(within(screen.getByTestId('audit-table')).getByText('signin.failure')).toBeInTheDocument(),
    );
    const table = screen.getByTestId('audit-table');
    expect(within(table).queryByText('code.issued')).not.toBeInTheDocument();
    // Choosing the event already asks the server: the user's name follows in a later call.
    await waitFor(() =>
      expect(calls.filter((call) => call.path === 'audit').at(-1)?.query).toEqual({
        event: 'signin.failure',
        username: 'dana',
        limit: '50',
      }),
    );
    expect(screen.getByRole('link', { name: 'Download CSV' })).toHaveAttribute(
      'href',
      '/dea/admin-api/audit.csv?event=signin.failure&username=dana',
    );
  });

  it('refuses a range that ends before it begins, without asking the server', async () => {
    const calls = fakeConsoleApi({ 'GET audit': () => envelope({ entries: [], next: null }) });
    renderConsole(<AuditScreen />);
    await screen.findByText('No entries.');
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-24T10:00' } });
    fireEvent.change(screen.getByLabelText('Until'), { target: { value: '2026-11-23T10:00' } });
    await userEvent.click(screen.getByRole('button', { name: 'Show' }));
    expect(screen.getByRole('alert')).toHaveTextContent('"Until" must be after "From".');
    expect(screen.getByLabelText('Until')).toHaveAttribute('aria-invalid', 'true');
    expect(calls.filter((call) => call.path === 'audit')).toHaveLength(1);
  });

  it('adds older entries a page at a time until there are none', async () => {
    const calls = fakeConsoleApi({
      'GET audit': (call) =>
        call.query?.cursor === undefined
          ? envelope({ entries: [entry('1', 'first.page')], next: 'c1' })
          : call.query.cursor === 'c1'
            ? envelope({ entries: [entry('2', 'second.page')], next: 'c2' })
            : envelope({ entries: [entry('3', 'third.page')], next: null }),
    });
    renderConsole(<AuditScreen />);
    await userEvent.click(await screen.findByRole('button', { name: 'Older entries' }));
    expect(await screen.findByText('second.page')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Older entries' }));
    expect(await screen.findByText('third.page')).toBeInTheDocument();
    expect(within(screen.getByTestId('audit-table')).getAllByRole('row')).toHaveLength(4);
    expect(screen.queryByRole('button', { name: 'Older entries' })).not.toBeInTheDocument();
    const pages = () => calls.filter((call) => call.path === 'audit');
    expect(pages().map((call) => call.query?.cursor)).toEqual([undefined, 'c1', 'c2']);

    // Applying the filters again starts from the newest page.
    await userEvent.click(screen.getByRole('button', { name: 'Show' }));
    await screen.findByRole('button', { name: 'Older entries' });
    expect(screen.queryByText('third.page')).not.toBeInTheDocument();
    expect(pages()).toHaveLength(4);
  });
});
