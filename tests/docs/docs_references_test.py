#!/usr/bin/env python3
"""The docs name only what exists (issue 34, point 5).

Over README.md, deploy/README.md and docs/*.md, outside fenced code blocks:
  - every relative link ([text](path#anchor)) names a file of the repository, and an
    anchor names a heading of the target (GitHub's slugs);
  - every `path` in backticks that starts with a top-level folder of the repository
    (tools/x.sh, deploy/overlays/prometheus, scheduler/plugins/...) exists, as a file, a
    folder, or a stem with .h/.cc/.md (`cmd/scheduler/app` for app.{h,cc});
  - every `--flag` in backticks is spelled somewhere in the sources, manifests or scripts
    (a flag of ours, or one they pass to kubectl, kube-apiserver...), or is one of the few
    flags of other programs listed in EXTERNAL_FLAGS;
  - no reference to a document outside the repository ("spec §7", ../shared/...);
  - every Service named as `svc/NAME`, `service/NAME` or "Service `NAME`" is a Service of
    the shipped manifests (deploy/).
Run by ctest (docs_references_test); `--self-test` shows each check fails on a bad doc.
Exit 1 lists every bad reference as FILE:LINE: what.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Flags of programs that are not ours and that no script of ours passes.
EXTERNAL_FLAGS = {
    "--client-ca-file",  # kube-apiserver's, in configuration.md's delegated authn notes
    "--requestheader-client-ca-file",  # kube-apiserver's
    "--expendable-pods-priority-cutoff",  # cluster-autoscaler's
}
PLACEHOLDER = re.compile(r"[<>*{}…$]|\.\.\.|(^|/)[A-Z](/|$)")


def doc_files():
    files = ["README.md", os.path.join("deploy", "README.md")]
    files += sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")
    )
    return [f for f in files if os.path.exists(os.path.join(ROOT, f))]


def strip_fences(text):
    """The text with fenced blocks blanked, line numbers kept."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else line)
    return out


def slug(heading):
    h = heading.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def headings(lines):
    return {slug(m.group(1)) for line in lines for m in [re.match(r"#+ (.*)$", line)] if m}


def tracked_sources(root):
    out = subprocess.run(
        ["git", "-C", root, "ls-files", "*.cc", "*.h", "*.sh", "*.cmake", "*CMakeLists.txt",
         "*.yaml", "*.py", "Dockerfile", ".ci/run"],
        capture_output=True, text=True, check=True).stdout.split()
    blob = []
    for f in out:
        try:
            with open(os.path.join(root, f), errors="ignore") as fh:
                blob.append(fh.read())
        except OSError:
            pass
    return "\n".join(blob)


def shipped_services(root):
    names = set()
    for dirpath, _, files in os.walk(os.path.join(root, "deploy")):
        for f in files:
            if not f.endswith(".yaml"):
                continue
            with open(os.path.join(dirpath, f)) as fh:
                for doc in fh.read().split("\n---"):
                    if re.search(r"^kind: Service\s*$", doc, re.M):
                        m = re.search(r"^metadata:\n(?:  .*\n)*?  name: (\S+)", doc, re.M)
                        if m:
                            names.add(m.group(1))
    return names


def path_exists(root, p):
    base = os.path.join(root, p.rstrip("/"))
    return any(os.path.exists(base + ext) for ext in ("", ".h", ".cc", ".md"))


def check(root, docs, sources, services):
    bad = []
    tops = {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))
            and not d.startswith(".") and not d.startswith("build")}
    texts = {}
    for f in docs:
        with open(os.path.join(root, f)) as fh:
            texts[f] = strip_fences(fh.read())
    heads = {f: headings(lines) for f, lines in texts.items()}
    for f, lines in texts.items():
        for n, line in enumerate(lines, 1):
            where = f"{f}:{n}"
            if re.search(r"spec( [\w.-]+)? §|\.\./shared/", line):
                bad.append(f"{where}: names a document outside the repository")
            for m in re.finditer(r"\]\(([^)\s]+)\)", line):
                target = m.group(1)
                if re.match(r"[a-z]+:", target):
                    continue  # http:, https:, mailto:
                path, _, anchor = target.partition("#")
                full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
                if not os.path.exists(os.path.join(root, full)):
                    bad.append(f"{where}: link to a missing file: {target}")
                elif anchor and full.endswith(".md"):
                    if full not in heads:
                        with open(os.path.join(root, full)) as fh:
                            heads[full] = headings(strip_fences(fh.read()))
                    if anchor not in heads[full]:
                        bad.append(f"{where}: link to a missing heading: {target}")
            for m in re.finditer(r"`([^`\s]+)`", line):
                token = m.group(1)
                if "/" in token and token.split("/")[0] in tops and not PLACEHOLDER.search(token):
                    p = token.split(":")[0].rstrip(".,")
                    if not path_exists(root, p):
                        bad.append(f"{where}: no such file or folder: {token}")
            for m in re.finditer(r"`(--[a-z][a-z0-9-]*)", line):
                flag = m.group(1)
                if flag in EXTERNAL_FLAGS:
                    continue
                if not any(s in sources for s in (f'"{flag}', f'"{flag[2:]}"', f"{flag}=",
                                                  f" {flag}")):
                    bad.append(f"{where}: a flag no program or script spells: {flag}")
            for m in re.finditer(r"(?:`(?:svc|service)/([a-z0-9-]+)`|Service `([a-z0-9-]+)`)",
                                 line):
                name = m.group(1) or m.group(2)
                if name not in services:
                    bad.append(f"{where}: no shipped Service is named {name}")
    return bad


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "docs"))
        os.makedirs(os.path.join(d, "tools"))
        os.makedirs(os.path.join(d, "deploy"))
        open(os.path.join(d, "tools", "real.sh"), "w").close()
        with open(os.path.join(d, "deploy", "svc.yaml"), "w") as fh:
            fh.write("kind: Service\nmetadata:\n  name: trimaran-load-watcher\n")
        with open(os.path.join(d, "docs", "a.md"), "w") as fh:
            fh.write("# Title\n## Real heading\n"
                     "[ok](a.md#real-heading) [bad](missing.md) [bad](a.md#nope)\n"
                     "`tools/real.sh` `tools/gone.sh` `tools/<x>.sh`\n"
                     "`--known` `--unknown`\n"
                     "Service `trimaran-load-watcher` and `svc/load-watcher`\n"
                     "as spec §7 says\n"
                     "```\n`tools/in-a-fence.sh`\n```\n")
        bad = check(d, ["docs/a.md"], 'x "--known" y', shipped_services(d))
    want = ["missing.md", "#nope", "tools/gone.sh", "--unknown", "load-watcher", "outside"]
    ok = len(bad) == len(want) and all(any(w in b for b in bad) for w in want)
    print("\n".join(bad))
    print("self-test:", "ok" if ok else f"FAILED (want {len(want)} findings: {want})")
    return 0 if ok else 1


def main():
    if "--self-test" in sys.argv:
        return self_test()
    docs = doc_files()
    bad = check(ROOT, docs, tracked_sources(ROOT), shipped_services(ROOT))
    for b in bad:
        print(b)
    print(f"docs_references: {len(docs)} files, {len(bad)} bad references")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
