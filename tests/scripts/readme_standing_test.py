#!/usr/bin/env python3
"""README.md's standing of mdh against its peers agrees with its sources: an HTML comment starting `<!-- standing:`
lists, one line each, a phrase of the paragraph after it with a ratio ("GEMM 1024³ 0.98×", "1.7 to 6.6×"), how the
ratio is formed (speedup: the peer's time / mdh's; slowdown: mdh's / the peer's; "A to B": the least and the
greatest over the rows) and its source:
  results/<device>/benchmark.csv | ROUTINE:LABEL:PEER,...   mdh's row (the tuned "mdh", else "mdh-default") against
                                                             the peer's, in the table's headline column
  docs/decisions.md: TITLE | CASE,...                       the table of the entry whose heading holds TITLE, its
                                                             columns `case`, `mdh tuned` and `best peer` (a name,
                                                             then the time)
Each ratio is recomputed from the times of its source and must read as the README writes it, at the README's
precision; every ratio of the paragraph must have its line, and README.md has no ratio outside such paragraphs.
Standard library only; well under a second."""
import os
import re
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import result_tables  # noqa: E402

NUMBER = r"\d+(?:\.\d+)?"
# "0.98×", "1.7 to 6.6×"; not the sizes "10×500×64".
RATIO = re.compile(r"(?<![\d.×])(%s)(?: to (%s))?×(?![\d])" % (NUMBER, NUMBER))
DECISIONS = "docs/decisions.md: "


def standing_blocks(text):
    """(marker lines, the paragraph after the comment with its whitespace collapsed, the paragraph's span in `text`)
    of each standing comment."""
    blocks = []
    for match in re.finditer(r"<!-- standing:(.*?)-->\n(.*?)(?:\n\n|\n- |\n<!--|\Z)", text, re.S):
        # The comment's own explanation has no "|"; each marker line has three.
        lines = [line.strip() for line in match.group(1).splitlines() if "|" in line]
        blocks.append((lines, " ".join(match.group(2).split()), match.span(2)))
    return blocks


def unlisted_ratios(text, blocks):
    """Ratios of `text` outside HTML comments and outside every standing paragraph: claims no test checks."""
    outside = re.sub(r"<!--.*?-->", lambda m: " " * len(m.group(0)), text, flags=re.S)
    return [m.group(0) for m in RATIO.finditer(outside)
            if not any(start <= m.start() < end for _, _, (start, end) in blocks)]


def time_value(cell):
    """The last number of a table cell ("cuBLASLt 55.36", "2,778.6", "`ttgt_lib` 263.04")."""
    numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", cell)
    if not numbers:
        raise ValueError("no time in '%s'" % cell)
    return float(numbers[-1].replace(",", ""))


def decisions_times(title, cases):
    """{case: (mdh time, peer time)} from the table of the docs/decisions.md entry whose heading holds `title`."""
    with open(os.path.join(ROOT, "docs", "decisions.md")) as f:
        text = f.read()
    heading = re.search(r"^### .*%s.*$" % re.escape(title), text, re.M)
    if not heading:
        raise ValueError("docs/decisions.md has no entry '%s'" % title)
    rows = []
    for line in text[heading.end():].splitlines():
        if line.startswith("### "):
            break
        if line.startswith("|") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    if not rows:
        raise ValueError("the entry '%s' has no table" % title)
    header, body = rows[0], {row[0]: row for row in rows[1:]}
    mdh, peer = header.index("mdh tuned"), header.index("best peer")
    missing = [case for case in cases if case not in body]
    if missing:
        raise ValueError("the entry '%s' has no rows %s" % (title, missing))
    return {case: (time_value(body[case][mdh]), time_value(body[case][peer])) for case in cases}


def csv_times(path, cases):
    """{ROUTINE:LABEL:PEER: (mdh time, peer time)} from a committed benchmark.csv, in its headline column."""
    folder = os.path.dirname(os.path.join(ROOT, path))
    rows = result_tables.read_rows(folder)
    if not rows:
        raise ValueError("%s has no rows" % path)
    column = result_tables.headline_column(rows)
    times = {}
    for case in cases:
        routine, label, peer = case.split(":")
        found = {r["peer"]: r for r in rows if (r["routine"], r["label"]) == (routine, label) and r["status"] == "ok"}
        ours = found.get("mdh") or found.get("mdh-default")
        if not ours or peer not in found or not ours.get(column) or not found[peer].get(column):
            raise ValueError("%s has no timed rows of mdh and %s for %s %s" % (path, peer, routine, label))
        times[case] = (float(ours[column]), float(found[peer][column]))
    return times


def recomputed(kind, source, cases):
    """The ratios of a marker line's rows, formed as `kind` says."""
    times = decisions_times(source[len(DECISIONS):], cases) if source.startswith(DECISIONS) else \
        csv_times(source, cases)
    if kind not in ("speedup", "slowdown"):
        raise ValueError("unknown kind '%s' (speedup or slowdown)" % kind)
    return [peer / mdh if kind == "speedup" else mdh / peer for mdh, peer in times.values()]


def reads_as(value, written):
    """Whether `value` rounds to `written` at its precision ("0.98", "19")."""
    decimals = len(written.split(".")[1]) if "." in written else 0
    return "%.*f" % (decimals, value) == written


def problems_of(text):
    """What in `text` (README.md) disagrees with its sources; [] when nothing does."""
    problems = []
    blocks = standing_blocks(text)
    if not blocks:
        return ["no <!-- standing: comment"]
    problems += ["the ratio '%s' is outside a paragraph with a standing comment" % r for r in unlisted_ratios(
        text, blocks)]
    for lines, paragraph, _ in blocks:
        covered = []
        for line in lines:
            if line.count("|") != 3:
                problems.append("'%s': not PHRASE | KIND | SOURCE | ROWS" % line)
                continue
            phrase, kind, source, rows = [part.strip() for part in line.split("|")]
            if " ".join(phrase.split()) not in paragraph:
                problems.append("'%s' is not in the paragraph after its comment" % phrase)
                continue
            ratio = RATIO.search(phrase)
            if not ratio:
                problems.append("'%s' holds no ratio (N× or N to M×)" % phrase)
                continue
            covered.append(phrase)
            try:
                values = recomputed(kind, source, [row.strip() for row in rows.split(",")])
            except (OSError, ValueError) as e:
                problems.append("%s: %s" % (phrase, e))
                continue
            low, high = ratio.group(1), ratio.group(2)
            if high is None and len(values) != 1:
                problems.append("'%s': one ratio written for %d rows" % (phrase, len(values)))
            elif not reads_as(min(values), low) or (high is not None and not reads_as(max(values), high)):
                problems.append("'%s': its source gives %s" % (phrase, " to ".join(
                    "%.3f" % v for v in sorted({min(values), max(values)}))))
        # Every ratio of the paragraph is one of the listed phrases.
        for match in RATIO.finditer(paragraph):
            if not any(match.group(0) in phrase and phrase in paragraph for phrase in covered):
                problems.append("the ratio '%s' of the paragraph has no line in its comment" % match.group(0))
    return problems


class ReadmeStanding(unittest.TestCase):
    def test_every_ratio_of_the_readme_standing_agrees_with_its_source(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            self.assertEqual(problems_of(f.read()), [])

    def test_a_ratio_that_its_source_does_not_give_fails(self):
        text = ("<!-- standing: test\nGEMM 0.34× | speedup | results/pocl-cpu-intel-xeon-2c/benchmark.csv | "
                "gemm:PC:openblas\n-->\n- GEMM 0.34× OpenBLAS.\n")
        self.assertEqual(problems_of(text), [])
        # The paragraph changed and its line not: the line's phrase is no longer there.
        wrong = text.replace("- GEMM 0.34×", "- GEMM 1.16×")
        self.assertIn("'GEMM 0.34×' is not in the paragraph after its comment", problems_of(wrong))
        # Both changed: the source does not give 1.16.
        wrong = wrong.replace("GEMM 0.34× |", "GEMM 1.16× |")
        problems = problems_of(wrong)
        self.assertEqual(len(problems), 1)
        self.assertRegex(problems[0], r"^'GEMM 1.16×': its source gives 0\.3[34]\d$")

    def test_a_ratio_elsewhere_in_the_readme_fails(self):
        with open(os.path.join(ROOT, "README.md")) as f:
            text = f.read()
        self.assertEqual(problems_of(text + "\nOn GEMM 10×500×64 mdh is 3.5× faster than everything.\n"),
                         ["the ratio '3.5×' is outside a paragraph with a standing comment"])

    def test_a_ratio_without_its_line_fails(self):
        text = ("<!-- standing: test\nGEMM 0.34× | speedup | results/pocl-cpu-intel-xeon-2c/benchmark.csv | "
                "gemm:PC:openblas\n-->\n- GEMM 0.34× and DOT 9.99× OpenBLAS.\n")
        self.assertEqual(problems_of(text), ["the ratio '9.99×' of the paragraph has no line in its comment"])


if __name__ == "__main__":
    unittest.main()
