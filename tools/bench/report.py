#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""make bench's report: the guest's runs, per measurement and policy.

usage: bench-report.py DIR

DIR (build/bench) holds what tools/bench/bench.sh gathered: raw.jsonl, one line
per run of the guest (tools/bench/guest.sh: round, test, size, policy,
ok, value or error); plan.json, the guest's rounds and measurements;
clock.json, the guest's clock against the host's; repath.json, the
re-path moves over the runs; grid.json, "roce-entropy simulate --grid
--json"; meta.json, the machine and its load.  For each measurement it
prints the median per policy over the rounds, the spread (min-max), the
ratio of each policy's median to the baseline's, stock 6.12 (builtin), and
the goal; the farthest any policy's rounds stray from its own median is
the noise floor a ratio is read against.  rfc+repath (rfc with roce_repath
on) is also set against rfc: what re-path costs without loss.
A run that failed, or a measurement short of a round, gets no figure: it is
printed as missing and the exit status is 1.  Writes DIR/report.json.
"""
import json
import os
import statistics
import sys

# The first is the baseline of the ratios: stock 6.12, what users run.
POLICIES = ['builtin', 'off', 'rfc', 'mix', 'rfc+repath']
BASE = POLICIES[0]
# Re-path's cost: rfc+repath against rfc, the same run.
REPATH, REPATH_BASE, REPATH_GOAL = 'rfc+repath', 'rfc', 0.98
GRID_POLICIES = ['builtin', 'rfc', 'mix', 'rxe-legacy', 'ideal']
# test: (label, unit, goal).  The guest records messages/s (perftest) and
# cycles/s (roce-ping); RC rates are shown in perftest's MB/s (2^20 bytes).
TESTS = {
    'write': ('ib_write_bw RC', 'MB/s', 0.98),
    'send': ('ib_send_bw RC', 'MB/s', 0.98),
    'ud': ('ib_send_bw UD', 'kmsg/s', 0.97),
    'cm': ('rdma_cm connect+RTT+disc', 'cycles/s', 0.97),
}


def scale(test, size):
    """The factor from the guest's raw figure to the unit shown."""
    if test in ('write', 'send'):
        return size / 2**20
    return 1e-3 if test == 'ud' else 1


def load_runs(path):
    runs = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            run = json.loads(line)
            for key in ('round', 'test', 'size', 'policy', 'ok'):
                if key not in run:
                    raise ValueError(f'{path}:{n}: no "{key}"')
            if run['test'] not in TESTS or run['policy'] not in POLICIES:
                raise ValueError(f'{path}:{n}: unknown test or policy')
            if run['ok'] and not (isinstance(run.get('value'), (int, float))
                                  and run['value'] > 0):
                raise ValueError(f'{path}:{n}: an ok run without a positive value')
            runs.append(run)
    return runs


def summarize(runs, rounds):
    """One entry per (test, size), in the order first run."""
    order, groups = [], {}
    for run in runs:
        key = (run['test'], run['size'])
        if key not in groups:
            order.append(key)
            groups[key] = {p: [] for p in POLICIES}
        groups[key][run['policy']].append(run)

    result = []
    for test, size in order:
        label, unit, goal = TESTS[test]
        entry = {'test': test, 'size': size, 'label': label, 'unit': unit,
                 'goal': goal, 'policies': {}, 'ratios': {}, 'verdicts': {},
                 'complete': True}
        for policy in POLICIES:
            got = groups[(test, size)][policy]
            values = [r['value'] * scale(test, size) for r in got if r['ok']]
            errors = [f"round {r['round']}: {r.get('error', '?')}"
                      for r in got if not r['ok']]
            if len(values) < rounds:
                errors.append(f'{len(values)} of {rounds} rounds measured')
            p = {'values': values, 'errors': errors}
            if values and not errors:
                p.update(median=statistics.median(values), min=min(values),
                         max=max(values))
            else:
                entry['complete'] = False
            entry['policies'][policy] = p
        base = entry['policies'][BASE]
        # The noise floor: how far a policy's own rounds stray from its
        # median (off against off, rfc against rfc...), at most.
        spreads = [max(p['max'] / p['median'] - 1, 1 - p['min'] / p['median'])
                   for p in entry['policies'].values()
                   if 'median' in p and len(p['values']) > 1]
        if spreads and entry['complete']:
            entry['noise'] = max(spreads)
        for policy in POLICIES[1:]:
            p = entry['policies'][policy]
            if 'median' not in p or 'median' not in base:
                entry['verdicts'][policy] = 'missing'
                continue
            ratio = p['median'] / base['median']
            entry['ratios'][policy] = ratio
            if ratio >= goal:
                entry['verdicts'][policy] = 'goal met'
            elif 'noise' in entry:
                entry['verdicts'][policy] = (
                    f"below goal (noise ±{100 * entry['noise']:.0f}%)")
            else:
                entry['verdicts'][policy] = 'below goal (noise unknown)'
        on, off = entry['policies'][REPATH], entry['policies'][REPATH_BASE]
        if 'median' in on and 'median' in off:
            entry['repath_ratio'] = on['median'] / off['median']
        result.append(entry)
    return result


def name(test, size):
    return TESTS[test][0] + (f' {size} B' if test != 'cm' else '')


def fmt(x):
    if x >= 100:
        return f'{x:.0f}'
    if x >= 10:
        return f'{x:.1f}'
    return f'{x:.3g}' if x < 1 else f'{x:.2f}'


def cell(p):
    if 'median' not in p:
        return 'missing'
    return f"{fmt(p['median'])} ({fmt(p['min'])}-{fmt(p['max'])})"


def verdict_text(entry):
    v = entry['verdicts']
    if all(x == 'goal met' for x in v.values()):
        return 'goal met'
    return '; '.join(f'{p} {x}' for p, x in v.items() if x != 'goal met')


def print_table(entries, rounds):
    others = POLICIES[1:]
    print(f'rxe in the VM, {rounds} rounds with the policies interleaved; rates per '
          'second of guest time (QEMU icount:')
    print('10^9 guest instructions).  Median per policy (min-max over the rounds), '
          f"ratio of each median to {BASE}'s (stock 6.12),")
    print("and the goal; noise = how far a policy's rounds stray from its own median, "
          'at most')
    head = (f"{'measurement':<26} {'unit':<8} "
            + ' '.join(f'{p:<20}' for p in POLICIES) + ' '
            + ' '.join(f"{p + '/' + BASE:>9}" for p in others)
            + f" {'noise':>6} {'goal':>6}  verdict")
    print(head)
    print('-' * len(head))
    for e in entries:
        label = name(e['test'], e['size'])
        ratios = [f"{e['ratios'][p]:.3f}" if p in e['ratios'] else 'missing'
                  for p in others]
        noise = f"±{100 * e['noise']:.0f}%" if 'noise' in e else '-'
        print(f"{label:<26} {e['unit']:<8} "
              + ' '.join(f'{cell(e["policies"][p]):<20}' for p in POLICIES) + ' '
              + ' '.join(f'{r:>9}' for r in ratios)
              + f" {noise:>6} {'>=' + str(e['goal']):>6}"
              + f'  {verdict_text(e)}')
        for p in POLICIES:
            for err in e['policies'][p]['errors']:
                print(f'    {p}: {err}')


def print_repath(entries, moves):
    print()
    print(f're-path without loss: {REPATH} against {REPATH_BASE}, goal >={REPATH_GOAL}')
    for e in entries:
        r = e.get('repath_ratio')
        if r is None:
            print(f"  {name(e['test'], e['size']):<26} missing")
            continue
        noise = f" (noise ±{100 * e['noise']:.0f}%)" if 'noise' in e else ''
        verdict = 'goal met' if r >= REPATH_GOAL else f'below goal{noise}'
        print(f"  {name(e['test'], e['size']):<26} {r:.3f}  {verdict}")
    if moves is None:
        print('  moves over the runs: not counted (the runs did not finish)')
    else:
        print(f"  moves over the runs: {moves['requester']} as requester, "
              f"{moves['responder']} as responder (nothing was lost: 0 expected)")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split('\n\n')[1])
    d = sys.argv[1]

    def load(name):
        with open(f'{d}/{name}') as f:
            return json.load(f)

    try:
        runs = load_runs(f'{d}/raw.jsonl') if os.path.exists(f'{d}/raw.jsonl') else []
        plan, meta = load('plan.json'), load('meta.json')
        clock = load('clock.json') if os.path.exists(f'{d}/clock.json') else None
        moves = load('repath.json') if os.path.exists(f'{d}/repath.json') else None
        grid = load('grid.json')['summary']
    except (OSError, ValueError, KeyError) as e:
        print(f'bench-report: error: {e}', file=sys.stderr)
        return 1
    rounds = plan['rounds']
    entries = summarize(runs, rounds)
    expected = {(m['test'], m['size']) for m in plan['measurements']}
    missing = sorted(expected - {(e['test'], e['size']) for e in entries})

    print_table(entries, rounds)
    for test, size in missing:
        print(f'{name(test, size)}: missing (no run at all)')
    print_repath(entries, moves)
    if clock:
        clock = dict(clock, ratio=clock['guest_seconds'] / clock['host_seconds'])
        print(f"over the runs the guest's clock counted {clock['guest_seconds']:.1f} s, the "
              f"host's {clock['host_seconds']:.1f} s (ratio {clock['ratio']:.2f})")
    else:
        print('guest clock against the host\'s: not measured (the runs did not finish)')
    print(f"host load average before / after: {meta['load_before']} / {meta['load_after']}")
    print()
    g = grid['mean_max_mean_n256_m8']
    print('roce-entropy simulate --grid: mean max/mean path load at n=256, m=8 '
          '(1.00 = perfect; builtin is stock 6.12, rxe-legacy its rxe UD port):')
    print('  ' + '  '.join(f'{k} {g[k]:.3f}' for k in GRID_POLICIES if k in g))
    for policy, t in grid['against_linux'].items():
        a, r = t['all'], t['goal_region']
        print(f"  {policy:<10} against builtin: {a['better']} better, {a['equal']} equal "
              f"within noise, {a['worse']} worse of {grid['cells']} cells; at n=64..1024, "
              f"m=4..16: {r['better']}, {r['equal']}, {r['worse']} of {grid['goal_cells']}")
    print(f"  mix's worst cell / ideal {grid['mix_worst_relative_to_ideal']:.3f}")

    ok = bool(clock) and not missing and all(e['complete'] for e in entries)
    report = dict(meta, plan=plan, clock=clock, repath_moves=moves, measurements=entries,
                  simulate_grid=grid, ok=ok, missing=[list(m) for m in missing])
    with open(f'{d}/report.json', 'w') as f:
        json.dump(report, f, indent=1)
        f.write('\n')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
