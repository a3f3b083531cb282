import { describe, expect, it } from 'vitest';
import { aclName } from './acl-names.js';
import { queueAclRules, reads } from './support.js';
import { SAMPLE_READS } from './queue-read-samples.js';

describe('the queue reads and the ACL rules generated from them', () => {
  it('has a sample for every read builder', () => {
    const builders = Object.entries(reads.queue).filter(([name, value]) => typeof value === 'function' && !name.startsWith('parse'));
    expect(builders.map(([name]) => name).sort()).toEqual(Object.keys(SAMPLE_READS).sort());
  });

  // The generator reads the builders' literals; this builds every read and checks what it really
  // sends is granted, so a command the scan could miss fails here.
  it('grants the command every read sends', () => {
    const rules = queueAclRules(['orders']);
    for (const [name, r] of Object.entries(SAMPLE_READS)) expect(rules, name).toContain(`+${aclName(r)}`);
  });
});
