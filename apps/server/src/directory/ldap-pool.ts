/** How a pool opens, checks and closes its connections. */
export interface PoolConnections<C> {
  open(): Promise<C>;
  close(connection: C): Promise<void>;
  /** Whether a connection kept idle can still be used (its socket is open). */
  usable(connection: C): boolean;
  /** Whether a failure of work on a connection means the connection itself is broken. */
  broken(error: unknown, connection: C): boolean;
  /**
   * Whether work that broke a connection just opened is tried once more on a new one: when the
   * new one would go elsewhere (a server that stopped answering was passed over). Work that found a
   * kept connection broken is always tried once more.
   */
  retryElsewhere?(connection: C): boolean;
  /** Told when a connection goes idle (true) or back into use (false): an idle one holds no process open. */
  idle?(connection: C, idle: boolean): void;
}

/**
 * At most `size` connections, opened when needed and kept for the next caller: a directory search
 * costs one round trip instead of a connection, a TLS handshake and a bind. A caller beyond `size`
 * waits for a connection to come back (first come, first served). A connection whose work failed
 * as a broken connection is closed and forgotten; work that found a kept connection broken is
 * tried once more on a new one, so a connection the server closed while idle costs no caller, and
 * so is work whose server stopped answering when the new connection goes to another one.
 */
/** What a waiting caller is handed: a connection, a place to open one in, or the end. */
type Grant<C> = { connection: C } | 'open' | 'closed';

export class ConnectionPool<C> {
  private readonly idleConnections: C[] = [];
  private readonly waiting: ((grant: Grant<C>) => void)[] = [];
  /** Connections handed out or being opened. */
  private inUse = 0;
  private closed = false;

  constructor(
    private readonly connections: PoolConnections<C>,
    private readonly size: number,
  ) {}

  /** Connections open now (in use and idle). */
  get open(): number {
    return this.inUse + this.idleConnections.length;
  }

  async use<T>(work: (connection: C) => Promise<T>): Promise<T> {
    const { connection, kept } = await this.take(false);
    try {
      const result = await work(connection);
      this.giveBack(connection);
      return result;
    } catch (error) {
      if (!this.connections.broken(error, connection)) {
        this.giveBack(connection);
        throw error;
      }
      await this.drop(connection);
      if (!kept && this.connections.retryElsewhere?.(connection) !== true) throw error;
    }
    // A kept connection had gone, or its server stopped answering: once more on a new one.
    const { connection: fresh } = await this.take(true);
    try {
      const result = await work(fresh);
      this.giveBack(fresh);
      return result;
    } catch (error) {
      if (this.connections.broken(error, fresh)) await this.drop(fresh);
      else this.giveBack(fresh);
      throw error;
    }
  }

  /** Closes the idle connections now and the others as they come back. */
  async close(): Promise<void> {
    this.closed = true;
    for (const grant of this.waiting.splice(0)) grant('closed');
    await Promise.all(this.idleConnections.splice(0).map((connection) => this.closeQuietly(connection)));
  }

  private async take(fresh: boolean): Promise<{ connection: C; kept: boolean }> {
    if (this.closed) throw new Error('the directory connections are closed');
    while (!fresh && this.idleConnections.length > 0) {
      const connection = this.idleConnections.pop() as C;
      if (this.connections.usable(connection)) {
        this.inUse += 1;
        this.connections.idle?.(connection, false);
        return { connection, kept: true };
      }
      await this.closeQuietly(connection);
    }
    if (this.inUse + this.idleConnections.length < this.size) {
      this.inUse += 1;
      return { connection: await this.openIn(), kept: false };
    }
    if (this.idleConnections.length > 0) {
      // A retry, which must not take a kept one again: its place goes to a new one.
      await this.closeQuietly(this.idleConnections.shift() as C);
      this.inUse += 1;
      return { connection: await this.openIn(), kept: false };
    }
    const grant = await new Promise<Grant<C>>((resolve) => this.waiting.push(resolve));
    if (grant === 'closed') throw new Error('the directory connections are closed');
    if (grant !== 'open') {
      if (!fresh && this.connections.usable(grant.connection))
        return { connection: grant.connection, kept: true };
      await this.closeQuietly(grant.connection);
    }
    return { connection: await this.openIn(), kept: false };
  }

  /** Opens a connection in a place already counted in `inUse`; a failure frees the place. */
  private async openIn(): Promise<C> {
    try {
      return await this.connections.open();
    } catch (error) {
      this.freePlace();
      throw error;
    }
  }

  private giveBack(connection: C): void {
    if (this.closed) {
      this.inUse -= 1;
      void this.closeQuietly(connection);
      return;
    }
    const next = this.waiting.shift();
    if (next !== undefined) {
      next({ connection });
      return;
    }
    this.inUse -= 1;
    this.connections.idle?.(connection, true);
    this.idleConnections.push(connection);
  }

  private async drop(connection: C): Promise<void> {
    await this.closeQuietly(connection);
    this.freePlace();
  }

  /** A place came free without a connection: the first waiter opens one in it. */
  private freePlace(): void {
    const next = this.closed ? undefined : this.waiting.shift();
    if (next === undefined) this.inUse -= 1;
    else next('open');
  }

  private async closeQuietly(connection: C): Promise<void> {
    await this.connections.close(connection).catch(() => undefined);
  }
}
