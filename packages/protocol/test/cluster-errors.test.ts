import { describe, expect, it } from 'vitest';
import { isNoScript } from '../src/connector/failures.js';
import { ClusterUnavailableError, ConnectionLostError, EchoError, GoneError, ServerError, StaleError, mapReplyError } from './support.js';

function reply(message: string): Error {
  const e = new Error(message);
  e.name = 'ReplyError';
  return e;
}

/** What ioredis' Cluster rejects a call with once its redirections ran out. */
function spent(last: Error): Error {
  return new Error(`Too many Cluster redirections. Last error: ${String(last)}`);
}

describe('cluster faults at the error seam', () => {
  it.each([
    ['redirections spent on a closed node', spent(new Error('Connection is closed.'))],
    ['redirections spent on MOVED', spent(reply('MOVED 3981 127.0.0.1:45645'))],
    ['redirections spent on CLUSTERDOWN', spent(reply('CLUSTERDOWN The cluster is down'))],
    ['redirections spent on TRYAGAIN', spent(reply('TRYAGAIN Multiple keys request during rehashing of slot'))],
    ['a raw CLUSTERDOWN (a pipeline member)', reply('CLUSTERDOWN The cluster is down')],
    ['a raw MOVED (a pipeline member)', reply('MOVED 12 127.0.0.1:7001')],
  ])('%s is a ClusterUnavailableError, a ConnectionLostError, with the cause', (_, raw) => {
    const mapped = mapReplyError(raw);
    expect(mapped).toBeInstanceOf(ClusterUnavailableError);
    expect(mapped).toBeInstanceOf(ConnectionLostError);
    expect(mapped).toBeInstanceOf(EchoError);
    expect(mapped).toMatchObject({ code: 'cluster_unavailable' });
    expect(mapped.cause).toBe(raw);
  });

  it('keeps a plain dropped socket a ConnectionLostError of its own code', () => {
    const mapped = mapReplyError(new Error('Connection is closed.'));
    expect(mapped).toBeInstanceOf(ConnectionLostError);
    expect(mapped).not.toBeInstanceOf(ClusterUnavailableError);
    expect(mapped).toMatchObject({ code: 'disconnected' });
  });

  it('maps a script reply that ended the redirections as the reply it was', () => {
    expect(mapReplyError(spent(reply('EMQSTALE complete token mismatch')))).toBeInstanceOf(StaleError);
    expect(mapReplyError(spent(reply('EMQSTALE job gone')))).toBeInstanceOf(GoneError);
    expect(mapReplyError(spent(reply('WRONGTYPE Operation against a key')))).toBeInstanceOf(ServerError);
  });

  it('recognises NOSCRIPT wherever the driver put it, and only as an error word', () => {
    expect(isNoScript(reply('NOSCRIPT No matching script. Please use EVAL.'))).toBe(true);
    expect(isNoScript(spent(reply('NOSCRIPT No matching script. Please use EVAL.')))).toBe(true);
    expect(isNoScript(reply('EMQSTATE payload mentions NOSCRIPTED'))).toBe(false);
    expect(isNoScript('NOSCRIPT')).toBe(false);
  });
});
