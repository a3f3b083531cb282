import { describe, expect, it } from 'vitest';
import { formatExposition } from './exposition.js';
import { HookMetrics } from './hook-metrics.js';
import { hooks } from './hooks.js';

describe('formatExposition', () => {
  it('writes HELP, TYPE and samples with escaped labels, and histograms as cumulative buckets', () => {
    const text = formatExposition([
      { name: 'echo_queue_jobs', help: 'Jobs\nper state', type: 'gauge', samples: [{ labels: { queue: 'a"b\\c', state: 'pending' }, value: 3 }] },
      { name: 'echo_empty_total', help: 'left out', type: 'counter', samples: [] },
      { name: 'echo_job_processing_seconds', help: 'h', type: 'histogram', samples: [{ labels: { queue: 'q' }, bounds: [0.1, 1], buckets: [1, 2], sum: 0.6, count: 3 }] },
    ]);
    expect(text).toBe(
      [
        '# HELP echo_queue_jobs Jobs\\nper state',
        '# TYPE echo_queue_jobs gauge',
        'echo_queue_jobs{queue="a\\"b\\\\c",state="pending"} 3',
        '# HELP echo_job_processing_seconds h',
        '# TYPE echo_job_processing_seconds histogram',
        'echo_job_processing_seconds_bucket{queue="q",le="0.1"} 1',
        'echo_job_processing_seconds_bucket{queue="q",le="1"} 2',
        'echo_job_processing_seconds_bucket{queue="q",le="+Inf"} 3',
        'echo_job_processing_seconds_sum{queue="q"} 0.6',
        'echo_job_processing_seconds_count{queue="q"} 3',
        '',
      ].join('\n'),
    );
  });
});

describe('HookMetrics', () => {
  it('counts from the hooks while started, with a processing histogram and a hit ratio', () => {
    const m = new HookMetrics({ buckets: [0.5, 2] }).start();
    hooks.job.complete.publish({ queue: 'q', jobId: 'JOB0000000000001', attempt: 1, durationMs: 1234 });
    hooks.job.fail.publish({ queue: 'q', jobId: 'JOB0000000000002', attempt: 1, durationMs: 100, error: 'x', outcome: 'dead' });
    hooks.cache.hit.publish({ table: 'users', key: 'a', tier: 'l1' });
    hooks.cache.hit.publish({ table: 'users', key: 'b', tier: 'l2' });
    hooks.cache.hit.publish({ table: 'users', key: 'c', tier: 'l1' });
    hooks.cache.miss.publish({ table: 'users', key: 'd' });
    m.stop();
    hooks.job.complete.publish({ queue: 'q', jobId: 'JOB0000000000003', attempt: 1, durationMs: 1 });
    const text = formatExposition(m.families());
    expect(text).toContain('echo_jobs_completed_total{queue="q"} 1\n');
    expect(text).toContain('echo_jobs_failed_total{queue="q",outcome="dead"} 1\n');
    expect(text).toContain('echo_job_processing_seconds_bucket{queue="q",outcome="completed",le="0.5"} 0\n');
    expect(text).toContain('echo_job_processing_seconds_bucket{queue="q",outcome="completed",le="2"} 1\n');
    expect(text).toContain('echo_job_processing_seconds_sum{queue="q",outcome="completed"} 1.234\n');
    expect(text).toContain('echo_cache_hits_total{table="users",tier="l1"} 2\n');
    expect(text).toContain('echo_cache_hit_ratio{table="users"} 0.75\n');
    expect(hooks.job.complete.hasSubscribers).toBe(false);
  });
});
