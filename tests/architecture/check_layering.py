#!/usr/bin/env python3
"""The layering test: the room table in docs/design/architecture.md is the law, and this script holds src/ to it.

The table (section 1 of that file) has one row per room:
    | room | folder | may use | pure | environment | holds |
- folder: a folder under the repository root (`src/core/`), or one file (`src/runtime/gpu_backend_nvidia.cpp`) for a
  room of its own; a file belongs to the room with the longest matching folder;
- may use: the rooms whose headers its files may include, comma-separated (a dash: none; the standard library is
  always allowed);
- pure: "yes" forbids I/O, clock, thread and vendor headers (the list below) in the room's files;
- environment: "yes" allows getenv/secure_getenv; elsewhere values come in from a room that may read them.
Three more rules hold everywhere: a header under a `detail/` folder is included only from its own room; no file in
src/ outside the source rooms (`sources`, `sources/...`) uses dynamic_cast or the SOLSCOPE_HAVE_NVIDIA macro, so
every vendor is reached through the CounterSource interface; every file under src/ belongs to a room; a header that only its own room includes lives in that room's detail/
folder (rooms that no other room may use, such as the command line, are exempt: all their headers are private).

Usage: check_layering.py ROOT            check the tree at ROOT; exit 1 with one line per violation.
       check_layering.py --self-test ROOT  prove that the check can fail: plant violations in a copy of the file
                                           list and assert that each one is reported (exit 1 if one is missed).
"""
import os
import re
import sys

TABLE_DOC = "docs/design/architecture.md"
FORBIDDEN_IN_PURE = re.compile(
    r"^[ \t]*#[ \t]*include[ \t]*[<\"](cuda|cupti|nvml|nvperf|sys/|netinet|arpa/|sqlite3|fstream|iostream|cstdio|"
    r"stdio\.h|chrono|ncurses|curses|httplib|dlfcn|unistd|thread|filesystem|fcntl|signal|csignal)",
    re.M)
INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"", re.M)
ENV_READ = re.compile(r"\b(secure_)?getenv\s*\(")
VENDOR_BYPASS = re.compile(r"\bdynamic_cast\b|\bSOLSCOPE_HAVE_NVIDIA\b")
SOURCE_EXTENSIONS = (".cpp", ".hpp", ".h", ".cc", ".cpp.in")


class Room:
    def __init__(self, name, folder, may_use, pure, environment):
        self.name, self.folder, self.may_use = name, folder, may_use
        self.pure, self.environment = pure, environment


def strip_code(cell):
    return cell.strip().strip("`").strip()


def parse_table(text):
    """Returns the rooms of the first table whose header begins `| room | folder | may use |`."""
    rooms, in_table = [], False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells and [c.lower() for c in cells[:5]] == ["room", "folder", "may use", "pure", "environment"]:
            in_table = True
            continue
        if not in_table:
            continue
        if cells is None:
            break
        if set("".join(cells)) <= set("-: "):
            continue
        name, folder = strip_code(cells[0]), strip_code(cells[1])
        uses = [] if cells[2].strip() in ("-", "—", "") else [strip_code(u) for u in cells[2].split(",")]
        rooms.append(Room(name, folder, uses, cells[3].strip().lower() == "yes",
                          cells[4].strip().lower() == "yes"))
    if not rooms:
        raise SystemExit(f"check_layering: no room table (| room | folder | may use | pure | environment |) in {TABLE_DOC}")
    names = {r.name for r in rooms}
    for r in rooms:
        for u in r.may_use:
            if u not in names:
                raise SystemExit(f"check_layering: room {r.name} may use '{u}', which is not a room of the table")
    return rooms


def room_of(path, rooms):
    """The room of a repository-relative path: the longest folder (or the exact file) that holds it."""
    best = None
    for r in rooms:
        f = r.folder
        if path == f or (f.endswith("/") and path.startswith(f)):
            if best is None or len(f) > len(best.folder):
                best = r
    return best


def detail_owner(include_path, rooms):
    """The room that owns a detail/ header, or None when the header is not under a detail/ folder."""
    if "/detail/" not in "/" + include_path:
        return None
    return room_of("src/" + include_path, rooms)


def check(files, rooms):
    """files: {repository-relative path: text}. Returns the list of violations, one line each."""
    problems = []
    for path in sorted(files):
        text = files[path]
        room = room_of(path, rooms)
        if room is None:
            problems.append(f"{path}: in no room of the table in {TABLE_DOC}; add a row or move the file")
            continue
        allowed = {room.name} | set(room.may_use)
        for inc in INCLUDE.findall(text):
            target = "src/" + inc
            if not os.path.exists(os.path.join(ROOT, target)) and target not in files:
                local = os.path.normpath(os.path.join(os.path.dirname(path), inc))
                if local in files or os.path.exists(os.path.join(ROOT, local)):
                    target = local
                else:
                    continue  # a generated header or a library's: not a room's
            other = room_of(target, rooms)
            if other is not None and other.name not in allowed:
                problems.append(f"{path}: includes \"{inc}\": room {room.name} may not use room {other.name} "
                                f"(may use: {', '.join(room.may_use) or 'none'})")
            owner = detail_owner(inc, rooms)
            if owner is not None and owner.name != room.name:
                problems.append(f"{path}: includes \"{inc}\", a detail/ header private to room {owner.name}")
        if room.pure:
            for m in FORBIDDEN_IN_PURE.finditer(text):
                line = text[m.start():text.find("\n", m.start())].strip()
                problems.append(f"{path}: {line}: room {room.name} is pure (no I/O, clock, thread or vendor header)")
        if not room.environment and ENV_READ.search(text):
            problems.append(f"{path}: reads the environment; room {room.name} may not (pass the value in)")
        if not (room.name == "sources" or room.name.startswith("sources/")) and VENDOR_BYPASS.search(text):
            problems.append(f"{path}: dynamic_cast or SOLSCOPE_HAVE_NVIDIA outside the source rooms (use "
                            f"CounterSource and its capabilities)")
    problems += private_headers_outside_detail(files, rooms)
    return problems


def private_headers_outside_detail(files, rooms):
    """A header that only its own room includes belongs in that room's detail/ folder. Rooms that no other room
    may use (the command line at the top) are exempt: every header of theirs is private by construction."""
    used_by_others = {u for r in rooms for u in r.may_use if u != r.name}
    includers = {}
    for path, text in files.items():
        for inc in INCLUDE.findall(text):
            includers.setdefault("src/" + inc, set()).add(path)
    problems = []
    for path in sorted(files):
        if not path.endswith((".hpp", ".h")) or "/detail/" in path:
            continue
        room = room_of(path, rooms)
        if room is None or room.name not in used_by_others:
            continue
        users = includers.get(path, set())
        if users and all(room_of(u, rooms) is room for u in users):
            problems.append(f"{path}: included only inside room {room.name}: move it to "
                            f"{room.folder}detail/ (or use it from another room)")
    return problems


def read_tree(root):
    files = {}
    for dirpath, _dirs, names in os.walk(os.path.join(root, "src")):
        for n in names:
            if n.endswith(SOURCE_EXTENSIONS):
                p = os.path.join(dirpath, n)
                with open(p, encoding="utf-8", errors="replace") as fh:
                    files[os.path.relpath(p, root)] = fh.read()
    return files


def self_test(files, rooms):
    """Plants one violation of each rule and asserts that check() reports it; returns the misses."""
    pure = next(r for r in rooms if r.pure)
    top = max(rooms, key=lambda r: len(r.may_use))
    low = next(r for r in rooms if top.name not in r.may_use and r.name != top.name and r.folder.endswith("/"))
    top_header = next(p for p in sorted(files) if room_of(p, rooms) is top and p.endswith(".hpp"))
    detail = next((p for p in sorted(files) if "/detail/" in p and p.endswith(".hpp")), None)
    plants = {
        "upward include": (low.folder + "planted_upward.cpp", f'#include "{top_header[4:]}"\n', "may not use room"),
        "I/O in a pure room": (pure.folder + "planted_io.cpp", "#include <fstream>\n", "is pure"),
        "environment read": (low.folder + "planted_env.cpp", 'auto v = std::getenv("X");\n', "reads the environment"),
        "vendor bypass": (top.folder + "planted_cast.cpp", "auto* p = dynamic_cast<int*>(q);\n", "dynamic_cast"),
        "file in no room": ("src/planted_nowhere/x.cpp", "int x;\n", "in no room"),
    }
    shared = next(r for r in rooms if r.folder.endswith("/") and any(r.name in o.may_use for o in rooms))
    lonely = shared.folder + "planted_private.hpp"
    plants["private header outside detail/"] = (lonely, "int private_value();\n", "move it to")
    extra_files = {lonely: {shared.folder + "planted_private_user.cpp": f'#include "{lonely[4:]}"\n'}}
    if detail is not None:
        owner = room_of(detail, rooms)
        stranger = next(r for r in rooms if r.name != owner.name and r.folder.endswith("/") and r.name != top.name)
        plants["foreign detail/ header"] = (stranger.folder + "planted_detail.cpp", f'#include "{detail[4:]}"\n',
                                            "detail/ header private")
    misses = []
    for what, (path, text, expect) in plants.items():
        planted = dict(files)
        planted[path] = text
        planted.update(extra_files.get(path, {}))
        found = [p for p in check(planted, rooms) if p.startswith(path + ":") and expect in p]
        print(f"planted {what} in {path}: {'reported' if found else 'MISSED'}")
        if not found:
            misses.append(what)
    return misses


def main(argv):
    global ROOT
    args = [a for a in argv[1:] if not a.startswith("--")]
    ROOT = os.path.abspath(args[0] if args else ".")
    with open(os.path.join(ROOT, TABLE_DOC), encoding="utf-8") as fh:
        rooms = parse_table(fh.read())
    files = read_tree(ROOT)
    if "--self-test" in argv:
        misses = self_test(files, rooms)
        if misses:
            print("check_layering: the check failed to report: " + ", ".join(misses))
            return 1
        print("check_layering: every planted violation was reported")
        return 0
    problems = check(files, rooms)
    for p in problems:
        print(p)
    if problems:
        print(f"check_layering: {len(problems)} violation(s) of the room table in {TABLE_DOC}")
        return 1
    print(f"check_layering: {len(files)} files in {len(rooms)} rooms keep the table in {TABLE_DOC}")
    return 0


ROOT = "."
if __name__ == "__main__":
    sys.exit(main(sys.argv))
