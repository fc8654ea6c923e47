#!/usr/bin/env python3
"""Checks the ship files in deploy/ (no daemon needed).

- `promtool check rules` on every deploy/prometheus/*.yml, and `promtool test rules` on the unit tests in
  tests/integration/prometheus/ (the alerts fire for the synthetic straggler and low-efficiency GPUs, the idle
  namespace and the training job whose straggler spread stays above 10 %, and for nothing else);
- the Grafana dashboard is valid JSON with unique panel ids, a datasource variable on every query, and queries
  that name only solscope series or the recording rules; its per-namespace panel's two queries (allocated and
  idle GPU-hours from solscope_workload_gpu_seconds_total) give the exact GPU-hours of two SYNTHETIC namespaces
  under `promtool test rules`, Grafana's variables set as for every node and GPU over 1 h; every query that reads a
  training-iteration series (the Training iterations row) gives the exact figures of three SYNTHETIC GPUs (two
  ranks of one pod, one of a Slurm job) the same way, the recording rules loaded;
- the Kubernetes manifest parses (when python3-yaml is installed) and holds the DaemonSet, Service and token
  Secret, with the daemon told to use the token;
- the systemd unit passes `systemd-analyze verify` (when present), apart from the binary not being installed.
"""

import glob
import json
import os
import re
import subprocess
import tempfile

import harness as h
from harness import check

DEPLOY = os.path.join(h.ROOT, "deploy")


def check_rules(promtool):
    files = sorted(glob.glob(os.path.join(DEPLOY, "prometheus", "*.yml")))
    check(files, "no rule files in deploy/prometheus/")
    res = subprocess.run([promtool, "check", "rules", *files], capture_output=True, text=True, check=False)
    check(res.returncode == 0, f"promtool check rules: status {res.returncode}\n{res.stdout}{res.stderr}")
    tests = sorted(glob.glob(os.path.join(h.HERE, "prometheus", "*.test.yml")))
    check(tests, "no rule unit tests in tests/integration/prometheus/")
    res = subprocess.run([promtool, "test", "rules", *tests], capture_output=True, text=True, check=False)
    check(res.returncode == 0, f"promtool test rules: status {res.returncode}\n{res.stdout}{res.stderr}")
    print(f"rules: {len(files)} file(s) valid, {len(tests)} unit test file(s) pass")
    return files


def rule_names(files):
    names = set()
    for f in files:
        with open(f, encoding="utf-8") as fh:
            names |= set(re.findall(r"^\s*- record: (\S+)", fh.read(), re.M))
    return names


def query_series(expr):
    """The solscope series and recording rules a PromQL query reads."""
    names = set(re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*(?=\{|\[|\s*\)|\s*$|\s*/|\s*==)", expr))
    return {n for n in names if n.startswith("solscope_") or ":" in n}


def grafana_promql(expr):
    """A panel's query as Grafana sends it for a dashboard showing every node and GPU over a 1 h range."""
    return (expr.replace("$__rate_interval", "1m").replace("$__range", "1h").replace("$hostname", ".*")
            .replace("$gpu", ".*"))


def check_grafana(recorded):
    path = os.path.join(DEPLOY, "grafana", "solscope-dashboard.json")
    with open(path, encoding="utf-8") as f:
        try:
            dash = json.load(f)
        except ValueError as err:
            h.fail(f"{path}: invalid JSON: {err}")
    check(dash.get("uid") and dash.get("title"), "the dashboard needs a uid and a title")
    variables = {v["name"] for v in dash.get("templating", {}).get("list", [])}
    check({"datasource", "hostname", "gpu"} <= variables, f"dashboard variables {variables}")
    panels = dash.get("panels", [])
    ids = [p["id"] for p in panels]
    check(len(ids) == len(set(ids)), f"duplicate panel ids: {ids}")
    queries = 0
    for p in panels:
        if p.get("type") == "row":
            continue
        check(p.get("datasource", {}).get("uid") == "${datasource}", f"panel {p.get('title')}: datasource")
        check(p.get("targets"), f"panel {p.get('title')} has no query")
        for t in p["targets"]:
            expr = t.get("expr", "")
            names = query_series(expr)
            check(names, f"panel {p.get('title')}: query names no solscope series: {expr}")
            unknown = {n for n in names if ":" in n and n not in recorded}
            check(not unknown, f"panel {p.get('title')}: recording rules {unknown} do not exist")
            queries += 1
    print(f"grafana: {len(panels)} panels, {queries} queries")
    return dash


# Issue 24: two namespaces over 1 h at one sample a minute (SYNTHETIC). team-a: GPU 0 of n1 exclusive (45 s of
# every minute compute-bound, 15 s idle) and half of the time-sliced GPU 1 (30 s a minute compute-bound);
# team-b: the other half of GPU 1, idle. A series without a namespace (a host process) must not count.
# Allocated: team-a 60 + 30 = 90 GPU-s a minute = 1.5 GPU-h; team-b 0.5. Idle: team-a 0.25, team-b 0.5.
NAMESPACE_SERIES = [
    ('hostname="n1",gpu="0",UUID="GPU-0",namespace="team-a",pod="a-0",sharing="exclusive",bound="compute"', 45),
    ('hostname="n1",gpu="0",UUID="GPU-0",namespace="team-a",pod="a-0",sharing="exclusive",bound="idle"', 15),
    ('hostname="n1",gpu="1",UUID="GPU-1",namespace="team-a",pod="a-1",sharing="time_sliced",bound="compute"', 30),
    ('hostname="n1",gpu="1",UUID="GPU-1",namespace="team-b",pod="b-0",sharing="time_sliced",bound="idle"', 30),
    ('hostname="n1",gpu="2",UUID="GPU-2",namespace="",pod="",sharing="exclusive",bound="idle"', 60),
]
NAMESPACE_EXPECTED = {"allocated": {"team-a": 1.5, "team-b": 0.5}, "idle": {"team-a": 0.25, "team-b": 0.5}}


def namespace_panel_exprs(dash):
    """{"allocated": expr, "idle": expr} of the per-namespace panel (the one grouping the workload counter by
    namespace)."""
    for p in dash.get("panels", []):
        exprs = [t.get("expr", "") for t in p.get("targets", [])]
        if any("solscope_workload_gpu_seconds_total" in e and "by (namespace)" in e for e in exprs):
            return {("idle" if 'bound="idle"' in e else "allocated"): e for e in exprs}
    h.fail("the dashboard has no per-namespace panel on solscope_workload_gpu_seconds_total")
    return {}


def check_namespace_panel(dash, promtool):
    exprs = namespace_panel_exprs(dash)
    check(set(exprs) == {"allocated", "idle"}, f"per-namespace panel: want allocated and idle queries: {exprs}")
    lines = ["rule_files: []", "evaluation_interval: 1m", "tests:", "  - interval: 1m", "    input_series:"]
    for labels, per_minute in NAMESPACE_SERIES:
        lines += [f"      - series: 'solscope_workload_gpu_seconds_total{{{labels}}}'",
                  f"        values: '0+{per_minute}x60'"]
    lines.append("    promql_expr_test:")
    for kind, expr in sorted(exprs.items()):
        promql = grafana_promql(expr)
        lines += [f"      - expr: {json.dumps(promql)}", "        eval_time: 60m", "        exp_samples:"]
        for namespace, hours in sorted(NAMESPACE_EXPECTED[kind].items()):
            lines += [f"          - labels: '{{namespace=\"{namespace}\"}}'", f"            value: {hours}"]
    run_rule_test(promtool, lines, "per-namespace panel")
    print("grafana: the per-namespace panel gives the GPU-hours of both namespaces")


def run_rule_test(promtool, lines, what):
    """Runs `promtool test rules` on a unit-test file made of `lines`; fails with promtool's report."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "panel.test.yml")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        res = subprocess.run([promtool, "test", "rules", path], capture_output=True, text=True, check=False)
    check(res.returncode == 0, f"{what} under promtool: status {res.returncode}\n{res.stdout}{res.stderr}")


# Issue 25: the Training iterations panels over SYNTHETIC gauges, one sample a minute for 10 min. Pod ml/train-0
# on n1 (GPUs 0 and 1: 0.5 s iterations, compute 50 % and 60 %, so 0.25 s and 0.3 s, median 0.275 s, straggler
# spread 0.025 / 0.275 = 9.1 %) and Slurm job 77 on n2 GPU 0 (1 s, 90 % compute, no communication: no offset).
ITERATION_GPUS = [
    ('gpu="0",UUID="GPU-n1-0",modelName="SYNTHETIC GPU",hostname="n1",pod="train-0",namespace="ml",container="t"',
     {"seconds": 0.5, "compute_ratio": 0.5, "communication_ratio": 0.25, "exposed_communication_ratio": 0.1,
      "communication_offset_seconds": 0.125}),
    ('gpu="1",UUID="GPU-n1-1",modelName="SYNTHETIC GPU",hostname="n1",pod="train-0",namespace="ml",container="t"',
     {"seconds": 0.5, "compute_ratio": 0.6, "communication_ratio": 0.25, "exposed_communication_ratio": 0.05,
      "communication_offset_seconds": 0.2}),
    ('gpu="0",UUID="GPU-n2-0",modelName="SYNTHETIC GPU",hostname="n2",hpc_job="77"',
     {"seconds": 1.0, "compute_ratio": 0.9, "communication_ratio": 0.0, "exposed_communication_ratio": 0.0}),
]
# Every dashboard query reading one of these series (any other iteration query fails the test): its figures x 1000,
# rounded, per GPU (hostname, gpu and the workload labels) or per job.
N1_0 = 'hostname="n1",gpu="0",namespace="ml",pod="train-0"'
N1_1 = 'hostname="n1",gpu="1",namespace="ml",pod="train-0"'
N2_0 = 'hostname="n2",gpu="0",hpc_job="77"'
ITERATION_EXPECTED = {
    "solscope_iteration_seconds": {N1_0: 500, N1_1: 500, N2_0: 1000},
    "solscope_iteration_compute_ratio": {N1_0: 500, N1_1: 600, N2_0: 900},
    "solscope_iteration_exposed_communication_ratio": {N1_0: 100, N1_1: 50, N2_0: 0},
    "solscope_iteration_communication_offset_seconds": {N1_0: 125, N1_1: 200},
    "namespace_pod_hpc_job:solscope_iteration_compute_spread_ratio:mean5m": {'namespace="ml",pod="train-0"': 91,
                                                                            'hpc_job="77"': 0},
}


def iteration_queries(dash):
    """[(panel title, refId, the one iteration series or rule it reads, expr)] of every dashboard query that reads
    a training-iteration series."""
    out = []
    for p in dash.get("panels", []):
        for t in p.get("targets", []):
            names = {n for n in query_series(t.get("expr", "")) if "iteration" in n}
            if names:
                check(len(names) == 1, f"panel {p.get('title')}: one iteration series a query, not {names}")
                out.append((p.get("title"), t.get("refId"), names.pop(), t["expr"]))
    return out


def check_iteration_panels(dash, promtool):
    queries = iteration_queries(dash)
    check(len(queries) >= 4, f"want the Training iterations panels' queries, got {len(queries)}")
    rules = os.path.join(DEPLOY, "prometheus", "solscope-rules.yml")
    lines = ["rule_files:", f"  - {json.dumps(rules)}", "evaluation_interval: 1m", "tests:", "  - interval: 1m",
             "    input_series:"]
    for labels, figures in ITERATION_GPUS:
        for name, value in figures.items():
            lines += [f"      - series: 'solscope_iteration_{name}{{{labels},instance=\"x:9741\",job=\"solscope\"}}'",
                      f"        values: '{value}x10'"]
    lines.append("    promql_expr_test:")
    for title, ref, name, expr in queries:
        check(name in ITERATION_EXPECTED, f"panel {title} query {ref}: no expected figures for {name}")
        # One row per GPU (or job) whatever other labels the panel keeps.
        promql = f"round(1000 * max by (hostname, gpu, namespace, pod, hpc_job) ({grafana_promql(expr)}))"
        lines += [f"      - expr: {json.dumps(promql)}", "        eval_time: 10m", "        exp_samples:"]
        for labels, value in ITERATION_EXPECTED[name].items():
            lines += [f"          - labels: '{{{labels}}}'", f"            value: {value}"]
    run_rule_test(promtool, lines, "Training iterations panels")
    print(f"grafana: {len(queries)} Training iterations queries give the exact figures of 3 SYNTHETIC GPUs")


def check_kubernetes():
    path = os.path.join(DEPLOY, "kubernetes", "daemonset.yaml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    check("\t" not in text, f"{path} contains a tab")
    try:
        import yaml  # python3-yaml; optional
    except ImportError:
        print("kubernetes: python3-yaml missing, structure not checked")
        return
    docs = [d for d in yaml.safe_load_all(text) if d]
    kinds = {d["kind"]: d for d in docs}
    for kind in ("Namespace", "Secret", "DaemonSet", "Service", "ServiceAccount"):
        check(kind in kinds, f"{path} has no {kind}")
    container = kinds["DaemonSet"]["spec"]["template"]["spec"]["containers"][0]
    check(container["args"][0] == "serve" and any(a.startswith("--token-file=") for a in container["args"]),
          f"the DaemonSet must run `serve --token-file=...` (it listens off loopback): {container['args']}")
    check(container["livenessProbe"]["httpGet"]["path"] == "/healthz", "liveness must use /healthz (no token)")
    # The kubelet's PodResources socket (pod, namespace and container of each GPU): the host's folder, read-only.
    pod_resources = "/var/lib/kubelet/pod-resources"
    mounts = {m["name"]: m for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in kinds["DaemonSet"]["spec"]["template"]["spec"].get("volumes", [])}
    mount = mounts.get("pod-resources", {})
    check(mount.get("mountPath") == pod_resources and mount.get("readOnly") is True,
          f"the DaemonSet must mount {pod_resources} read-only (volume pod-resources): {mount}")
    check(volumes.get("pod-resources", {}).get("hostPath", {}).get("path") == pod_resources,
          f"volume pod-resources must be the host's {pod_resources}")
    print(f"kubernetes: {len(docs)} objects")


def check_systemd():
    unit = os.path.join(DEPLOY, "systemd", "solscope.service")
    tool = "/usr/bin/systemd-analyze"
    if not os.access(tool, os.X_OK):
        print("systemd: systemd-analyze missing, unit not verified")
        return
    res = subprocess.run([tool, "verify", unit], capture_output=True, text=True, check=False)
    problems = [l for l in (res.stdout + res.stderr).splitlines()
                if l.strip() and "is not executable" not in l and "No such file" not in l]
    check(not problems, "systemd-analyze verify:\n" + "\n".join(problems))
    print("systemd: unit verified")


def main():
    promtool = h.require_tool("promtool")
    files = check_rules(promtool)
    dash = check_grafana(rule_names(files))
    check_namespace_panel(dash, promtool)
    check_iteration_panels(dash, promtool)
    check_kubernetes()
    check_systemd()


if __name__ == "__main__":
    h.run_main(main)
