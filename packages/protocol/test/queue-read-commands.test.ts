import { describe, expect, it } from 'vitest';
import { queueAclRules, reads } from './support.js';
import { SAMPLE_READS } from './queue-read-samples.js';

/** Commands whose ACL name carries their first argument (`xinfo|stream`, `client|id`). */
const CONTAINERS = new Set(['XINFO', 'XGROUP', 'CLIENT', 'SCRIPT', 'CONFIG', 'OBJECT', 'MEMORY']);

function aclName(r: reads.Read<unknown>): string {
  const name = r.command.toUpperCase();
  return (CONTAINERS.has(name) ? `${name}|${String(r.args[0])}` : name).toLowerCase();
}

describe('QUEUE_READ_COMMANDS, the queue reads in ACL spelling', () => {
  const sent = new Set(Object.values(SAMPLE_READS).map(aclName));

  it('has a sample for every read builder', () => {
    const builders = Object.entries(reads.queue).filter(([name, value]) => typeof value === 'function' && !name.startsWith('parse'));
    expect(builders.map(([name]) => name).sort()).toEqual(Object.keys(SAMPLE_READS).sort());
  });

  it('names the command of every read', () => {
    for (const [name, r] of Object.entries(SAMPLE_READS)) expect(reads.queue.QUEUE_READ_COMMANDS, name).toContain(aclName(r));
  });

  it('names no command that no read sends', () => {
    for (const command of reads.queue.QUEUE_READ_COMMANDS) expect(sent, command).toContain(command);
  });

  it('is granted by the queue ACL rules', () => {
    const rules = queueAclRules(['orders']);
    for (const command of reads.queue.QUEUE_READ_COMMANDS) expect(rules).toContain(`+${command}`);
  });
});
