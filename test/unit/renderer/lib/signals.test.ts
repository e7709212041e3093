import assert from 'node:assert/strict';
import { test } from 'node:test';
import { topContributions } from '../../../../renderer/src/lib/signals.ts';

test('the top contributions are the largest in size, signed, zeros left out', () => {
  const signals = [
    { name: 'bias', value: 1, contribution: -2 },
    { name: 'anchor-best', value: 0.8, contribution: 3.2 },
    { name: 'model', value: 40, contribution: 0 },
    { name: 'hot-parent', value: 1, contribution: 1.5 },
    { name: 'folder', value: 0.05, contribution: 0.1 },
  ];
  assert.equal(topContributions(signals), 'anchor-best +3.200 · bias -2.000 · hot-parent +1.500');
  assert.equal(topContributions(signals, 1), 'anchor-best +3.200');
  assert.equal(topContributions([{ name: 'model', value: 1, contribution: 0 }]), '');
});
