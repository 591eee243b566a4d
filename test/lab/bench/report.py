#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Turn the lab benchmark's raw JSON lines into a comparison report.

    report.py RAW [--json OUT.json] [--plot OUT.png] [--gnuplot-script OUT.gp]

Prints a table of rdmatest against upstream (and rstream against perftest)
on stdout. Exit status: 0 the report was produced (missed targets are
findings, not errors), 1 an output could not be written or plotted,
2 usage error or an unreadable/malformed RAW file.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

# rstream's limit: the perftest row it is held against, and the target
# ratio (None: shown for information only).
LIMITS = {'gbps': ('ib_send_bw', 0.90), 'usec_xfer': ('ib_send_lat', None)}


class Malformed(Exception):
    pass


def die(msg, status=2):
    sys.stdout.flush()  # keep the table ahead of the error on a shared tty
    print('report: ' + msg, file=sys.stderr)
    sys.exit(status)


def direction(metric):
    # '_per_s' first: a rate such as conn_per_s also ends in '_s'
    if metric.endswith('_per_s') or metric == 'gbps':
        return 'higher'
    if metric.endswith(('_s', '_us')) or metric == 'usec_xfer':
        return 'lower'
    return None


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x):
    # json accepts NaN and Infinity, which would poison every median
    return (is_int(x) or isinstance(x, float)) and math.isfinite(x)


def check_measurement(m):
    for key in ('bench', 'tool'):
        if not isinstance(m.get(key), str) or not m[key]:
            raise Malformed(f'"{key}" must be a non-empty string')
    if not isinstance(m.get('row'), str):
        raise Malformed('"row" must be a string')
    if not is_int(m.get('rep')):
        raise Malformed('"rep" must be an integer')
    size = m.get('size')
    if size is not None and not (is_int(size) and size >= 0):
        raise Malformed('"size" must be a non-negative integer')
    # where the ends ran: 2 hosts (the default, and all that older raw
    # files hold) or both in 1
    if m.setdefault('hosts', 2) not in (1, 2) or not is_int(m['hosts']):
        raise Malformed('"hosts" must be 1 or 2')
    if 'error' in m and not isinstance(m['error'], str):
        raise Malformed('"error" must be a string')
    # a failed run may have no metrics at all
    metrics = m.setdefault('metrics', {}) if 'error' in m else m.get('metrics')
    if not isinstance(metrics, dict) or not all(map(is_num, metrics.values())):
        raise Malformed('"metrics" must map names to finite numbers')


def parse_line(line, meta, runs):
    try:
        obj = json.loads(line.strip())
    except ValueError as e:
        raise Malformed(f'bad JSON ({e.msg} at column {e.colno})')
    if not isinstance(obj, dict):
        raise Malformed('not a JSON object')
    if 'meta' in obj and 'bench' not in obj:
        if not isinstance(obj['meta'], dict):
            raise Malformed('"meta" must be an object')
        meta.update(obj['meta'])
    elif 'bench' in obj:
        check_measurement(obj)
        runs.append(obj)
    else:
        raise Malformed('neither {"meta": ...} nor a measurement ("bench")')


def parse(path):
    meta, runs = {}, []
    try:
        # stray bytes in guest output must not stop the report
        with open(path, encoding='utf-8', errors='replace') as f:
            for num, line in enumerate(f, 1):
                if line.lstrip().startswith('{'):
                    try:
                        parse_line(line, meta, runs)
                    except Malformed as e:
                        die(f'{path}:{num}: {e}')
    except OSError as e:
        die(f'{path}: {e.strerror}')
    if not runs:
        die(f'{path}: no measurements')
    return meta, runs


def metric_names(runs):
    names = {}  # a dict keeps file order, unlike a set
    for r in runs:
        names.update(dict.fromkeys(r['metrics']))
    return list(names)


def applies(runs, metric):
    # a tool whose runs all failed without metrics still shows in every
    # metric row of its bench row, so that its failures are seen
    names = metric_names(runs)
    return not names or metric in names


def stats(runs, metric):
    ok = [r['metrics'][metric] for r in runs
          if 'error' not in r and metric in r['metrics']]
    s = {'median': None, 'min': None, 'max': None, 'n': len(ok), 'runs': len(runs)}
    if ok:
        s.update(median=statistics.median(ok), min=min(ok), max=max(ok))
    return s


def ratio(a, b):
    return None if a is None or not b else a / b


def meets(d, r, target):
    return r >= target if d == 'higher' else r <= target


def best_ratio(d, sa, sb):
    # the most favourable ratio the two min..max ranges allow: if even that
    # misses, the miss is beyond the run-to-run noise
    if d == 'higher':
        return sa['max'] / sb['min'] if sb['min'] else math.inf
    return sa['min'] / sb['max']


def worst_ratio(d, sa, sb):
    # the least favourable ratio the ranges allow: a median that meets the
    # target is decided only if this meets it too
    if d == 'higher':
        return sa['min'] / sb['max'] if sb['max'] else 0.0
    return sa['max'] / sb['min'] if sb['min'] else math.inf


def judge(row, a, b, target):
    """Add ratio, target and verdict to row: tool a's median against b's."""
    sa, sb, d = row['tools'].get(a), row['tools'].get(b), row['direction']
    row.update(ratio=None, target=None, verdict='-')
    if not sa or not sb:
        return row  # one tool only: nothing to compare
    row['ratio'] = ratio(sa['median'], sb['median'])
    if target is None or d is None:
        row['verdict'] = 'info'  # compared, but nothing to meet
        return row
    row['target'] = ('>= ' if d == 'higher' else '<= ') + '%.2f' % target
    if not sb['median']:
        row['verdict'] = 'no baseline'
    elif not sa['n']:
        row['verdict'] = 'miss (no ok runs)'
    elif meets(d, row['ratio'], target):
        decided = meets(d, worst_ratio(d, sa, sb), target)
        row['verdict'] = 'met' if decided else 'met (within noise)'
    elif meets(d, best_ratio(d, sa, sb), target):
        row['verdict'] = 'miss (within noise)'
    else:
        row['verdict'] = 'miss'
    return row


def build_rows(runs):
    groups = {}  # (bench, row, hosts) -> tool -> runs, in file order
    for r in runs:
        key = (r['bench'], r['row'], r['hosts'])
        groups.setdefault(key, {}).setdefault(r['tool'], []).append(r)
    rows = []
    for (bench, name, hosts), by_tool in groups.items():
        every = [r for rs in by_tool.values() for r in rs]
        size = next((r['size'] for r in every if r.get('size') is not None), None)
        for metric in metric_names(every) or ['-']:
            tools = {t: stats(rs, metric) for t, rs in by_tool.items() if applies(rs, metric)}
            row = {'bench': bench, 'row': name, 'hosts': hosts, 'size': size,
                   'metric': metric, 'direction': direction(metric), 'tools': tools}
            rows.append(judge(row, 'rdmatest', 'upstream', 1.0))
    return rows


def perftest_row(rows, name, hosts, size, metric):
    return next((p for p in rows if p['bench'] == 'perftest' and p['hosts'] == hosts
                 and p['row'].split()[:1] == [name] and p['size'] == size
                 and p['metric'] == metric and 'perftest' in p['tools']), None)


def build_limits(rows):
    limits = []
    for r in rows:
        if (r['bench'] != 'rstream' or r['size'] is None
                or r['metric'] not in LIMITS or 'rdmatest' not in r['tools']):
            continue
        name, target = LIMITS[r['metric']]
        p = perftest_row(rows, name, r['hosts'], r['size'], r['metric'])
        if p:
            lim = {k: r[k] for k in ('bench', 'row', 'hosts', 'size', 'metric', 'direction')}
            lim.update(against=p['row'], tools={'rdmatest': r['tools']['rdmatest'],
                                                'perftest': p['tools']['perftest']})
            limits.append(judge(lim, 'rdmatest', 'perftest', target))
    return limits


def summarize(rows, limits, runs):
    verdicts = [r['verdict'] for r in rows + limits]
    return {'met': sum(v.startswith('met') for v in verdicts),
            'met_within_noise': verdicts.count('met (within noise)'),
            'missed': sum(v.startswith('miss') for v in verdicts),
            'within_noise': verdicts.count('miss (within noise)'),
            'runs_ok': sum('error' not in r for r in runs),
            'runs_failed': sum('error' in r for r in runs)}


def fmt(x):
    if x is None:
        return '-'
    # %.4g would print a 5-digit value such as 12345 as 1.234e+04
    return '%.0f' % x if abs(x) >= 9999.5 else '%.4g' % x


def cell(s):
    if s is None:
        return ''
    ok = '%d/%d runs ok' % (s['n'], s['runs'])
    if not s['n']:
        return ok
    text = '%s [%s-%s]' % (fmt(s['median']), fmt(s['min']), fmt(s['max']))
    return text if s['n'] == s['runs'] else text + ' ' + ok


def table(header, lines):
    widths = [max(len(str(l[i])) for l in [header] + lines) for i in range(len(header))]
    for l in [header] + lines:
        print('  '.join(str(c).ljust(w) for c, w in zip(l, widths)).rstrip())


def verdict_cells(r):
    ratio = '-' if r['ratio'] is None else '%.3f' % r['ratio']
    return [ratio, r['target'] or '-', r['verdict']]


def print_report(path, meta, rows, limits, runs, summary):
    print(f'rdmatest benchmark report: {path}')
    for k, v in meta.items():
        print(f'  {k}: {v if isinstance(v, str) else json.dumps(v)}')
    print()
    paired = [r for r in rows if {'rdmatest', 'upstream'} & set(r['tools'])]
    table(['bench', 'hosts', 'row', 'metric', 'rdmatest', 'upstream', 'ratio', 'target',
           'verdict'],
          [[r['bench'], r['hosts'], r['row'], r['metric'], cell(r['tools'].get('rdmatest')),
            cell(r['tools'].get('upstream'))] + verdict_cells(r) for r in paired])
    others = sorted({t for r in rows for t in r['tools']} - {'rdmatest', 'upstream'})
    if others:  # reference tools (perftest): shown, not judged
        print('\nreference runs')
        table(['bench', 'hosts', 'row', 'metric'] + others,
              [[r['bench'], r['hosts'], r['row'], r['metric']]
               + [cell(r['tools'].get(t)) for t in others]
               for r in rows if set(others) & set(r['tools'])])
    if limits:
        print('\nlimits: rdmatest rstream against perftest')
        table(['bench', 'hosts', 'row', 'metric', 'rdmatest', 'against', 'perftest',
               'ratio', 'target', 'verdict'],
              [[r['bench'], r['hosts'], r['row'], r['metric'], cell(r['tools']['rdmatest']),
                r['against'],
                cell(r['tools']['perftest'])] + verdict_cells(r) for r in limits])
    failed = [r for r in runs if 'error' in r]
    if failed:
        print('\nfailed runs')
        for r in failed:
            print(f"  {r['bench']} {r['row']} {r['tool']} rep {r['rep']}: {r['error']}")
    print('\ntargets: {met} met ({met_within_noise} within noise), '
          '{missed} missed ({within_noise} within noise)'.format(**summary))
    print('runs: {runs_ok} ok, {runs_failed} failed'.format(**summary))


def gp_str(s):
    return "'" + s.replace("'", "''") + "'"  # gnuplot's single-quote escape


def size_label(n):
    for unit, shift in (('G', 30), ('M', 20), ('K', 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return '%d%s' % (n >> shift, unit)
    return str(n)


def points(rows, bench, tool, metric, perf=None):
    # the plot is the two-host comparison
    return sorted((r['size'], r['tools'][tool]['median']) for r in rows
                  if r['bench'] == bench and r['hosts'] == 2 and r['metric'] == metric
                  and r['size'] is not None
                  and tool in r['tools'] and r['tools'][tool]['median'] is not None
                  and (perf is None or r['row'].split()[:1] == [perf]))


def series(rows, metric, perf):
    return [('rdmatest rstream', points(rows, 'rstream', 'rdmatest', metric)),
            ('upstream rstream', points(rows, 'rstream', 'upstream', metric)),
            ('perftest ' + perf, points(rows, 'perftest', 'perftest', metric, perf))]


def panel(title, ylabel, data, logy):
    head = [f'set title {gp_str(title)}', f'set ylabel {gp_str(ylabel)}']
    if not any(pts for _, pts, _ in data):
        # a panel with nothing to plot must not fail the whole PNG
        return head + ['unset logscale', 'unset xtics',
                       "set label 1 'no data' at graph 0.5,0.5 center",
                       'plot [0:1] [0:1] -1 notitle', 'unset label 1']
    plots = ', '.join(f'{gp_str(path)} using 1:2 with linespoints title {gp_str(name)}'
                      for name, pts, path in data if pts)
    sizes = sorted({s for _, pts, _ in data for s, _ in pts})
    tics = ', '.join(f'{gp_str(size_label(s))} {s}' for s in sizes)
    return head + ['set logscale x 2', f'set xtics ({tics})',
                   'set logscale y' if logy else 'unset logscale y', 'plot ' + plots]


def write_plot_files(rows, meta, gp_path, png_path):
    """Write the data files next to gp_path, and the script itself."""
    base = os.path.splitext(os.path.abspath(gp_path))[0]
    panels = []
    for key, metric, perf in (('lat', 'usec_xfer', 'ib_send_lat'),
                              ('bw', 'gbps', 'ib_send_bw')):
        data = []
        for i, (name, pts) in enumerate(series(rows, metric, perf)):
            path = f'{base}.{key}{i}.dat'
            with open(path, 'w') as f:
                f.writelines(f'{s} {v}\n' for s, v in pts)
            data.append((name, pts, path))
        panels.append(data)
    # the figures are an emulated CPU's: the plot says so itself, since it
    # is shown without the text around it
    title = ', '.join(['rstream against perftest, measured in qemu (TCG) with Soft-RoCE (rxe):'
                       ' only the ratios mean anything']
                      + [str(meta[k]) for k in ('host', 'date') if k in meta])
    script = [
        'set encoding utf8',
        # pngcairo looks better; plain png is what a gnuplot without cairo has
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {",
        '  set terminal pngcairo size 1200,500',
        '} else {', '  set terminal png size 1200,500', '}',
        'set termoption noenhanced',  # keep '_' in names literal
        f'set output {gp_str(os.path.abspath(png_path))}',
        'set grid', 'set key top left', "set xlabel 'message size (bytes)'",
        f'set multiplot layout 1,2 title {gp_str(title)}',
        *panel('latency', 'µs/xfer', panels[0], True),
        *panel('bandwidth', 'Gb/s', panels[1], False),
        'unset multiplot', 'unset output']
    with open(gp_path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(script) + '\n')


def plot(rows, meta, png_path, gp_path):
    with tempfile.TemporaryDirectory(prefix='report.') as tmp:
        gp_path = gp_path or os.path.join(tmp, 'plot.gp')
        write_plot_files(rows, meta, gp_path, png_path)
        gnuplot = shutil.which('gnuplot')
        if not gnuplot:
            die('gnuplot not found (apt-get install gnuplot-nox)', 1)
        res = subprocess.run([gnuplot, gp_path], capture_output=True, text=True)
    if res.returncode != 0:
        lines = res.stderr.strip().splitlines() or ['no message']
        die(f'gnuplot failed: {lines[-1]}', 1)


def main():
    ap = argparse.ArgumentParser(prog='report.py',
                                 description='Compare lab benchmark results (JSON lines).')
    ap.add_argument('raw', metavar='RAW')
    ap.add_argument('--json', metavar='OUT.json', help='also write the report as JSON')
    ap.add_argument('--plot', metavar='OUT.png', help='plot rstream/perftest with gnuplot')
    ap.add_argument('--gnuplot-script', metavar='OUT.gp',
                    help='keep the gnuplot script and its data files next to it '
                         '(without --plot: write them, do not run gnuplot)')
    args = ap.parse_args()
    meta, runs = parse(args.raw)
    rows = build_rows(runs)
    limits = build_limits(rows)
    summary = summarize(rows, limits, runs)
    print_report(args.raw, meta, rows, limits, runs, summary)
    try:
        if args.json:
            with open(args.json, 'w') as f:
                json.dump({'meta': meta, 'rows': rows, 'limits': limits,
                           'failed': [r for r in runs if 'error' in r],
                           'summary': summary}, f, indent=1)
                f.write('\n')
        if args.plot:
            plot(rows, meta, args.plot, args.gnuplot_script)
        elif args.gnuplot_script:
            png = os.path.splitext(args.gnuplot_script)[0] + '.png'
            write_plot_files(rows, meta, args.gnuplot_script, png)
    except OSError as e:
        die(f'{e.filename}: {e.strerror}', 1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
