package pages

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/scripts/internal/stages"
)

// TestEveryQuestionHasARunnableMarker fails, naming page and line, on a Predict paragraph without a
// marker, a marker whose command does not run (no go command, a stage that does not exist) or names a
// benchmark that no package of it has, and a row of the marker that its command does not measure.
func TestEveryQuestionHasARunnableMarker(t *testing.T) {
	for _, p := range markerProblems(t, root) {
		t.Error(p)
	}
}

// TestAQuestionWithoutAMarkerFails adds a question without a marker to a copy of stage 2's chapter.
func TestAQuestionWithoutAMarkerFails(t *testing.T) {
	page := filepath.Join("docs", "stage2-noclone.md")
	data, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "## ") }) // before the first section
	lines = slices.Insert(lines, at, "Predict first. How fast is it?", "")
	got, _ := PageQuestions("docs/stage2-noclone.md", strings.Join(lines, "\n"))
	_, problems := PageQuestions("docs/stage2-noclone.md", strings.Join(lines, "\n"))
	want := fmt.Sprintf("docs/stage2-noclone.md:%d: a Predict paragraph without a question marker", at+1)
	if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, want) }) {
		t.Errorf("the added question is not named: want %q among %q (%d questions)", want, problems, len(got))
	}
}

// TestNoAnswerBeforeTheLearnersRun fails on a generated block, between a question's marker and its
// answer, that is not folded: the measured answer would be on screen before the learner's own run.
func TestNoAnswerBeforeTheLearnersRun(t *testing.T) {
	for _, p := range Path(root) {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue
		}
		for _, u := range Unfolded(p, string(data)) {
			t.Error(u)
		}
	}
}

func TestFoldBlocks(t *testing.T) {
	page := "Predict first: how fast? <!-- question q ask=x rows=R: go run ./scripts/compare s -->\n\n" +
		"<!-- BEGIN GENERATED: a -->\n12ms\n<!-- END GENERATED: a -->\n\n<details><summary>Answer</summary>\n\nfast\n</details>\n" +
		"<!-- BEGIN GENERATED: b -->\nafter the answer\n<!-- END GENERATED: b -->\n"
	if got := Unfolded("p.md", page); len(got) != 1 || !strings.HasPrefix(got[0], "p.md:3: block a") {
		t.Errorf("Unfolded = %q, want block a at line 3 alone", got)
	}
	folded := FoldBlocks("p.md", page)
	if got := Unfolded("p.md", folded); len(got) != 0 {
		t.Errorf("after FoldBlocks, still unfolded: %q\n%s", got, folded)
	}
	if want := "<!-- BEGIN GENERATED: a -->\n" + Fold + "\n\n12ms\n\n</details>\n<!-- END GENERATED: a -->"; !strings.Contains(folded, want) {
		t.Errorf("FoldBlocks:\n%s\nwant within it:\n%s", folded, want)
	}
	if FoldBlocks("p.md", folded) != folded {
		t.Error("FoldBlocks folds a folded block again")
	}
	if strings.Count(folded, Fold) != 1 {
		t.Error("FoldBlocks folded the block after the answer")
	}
}

func TestPageQuestions(t *testing.T) {
	page := "Predict first:\n\n1. One? <!-- question q.one ask=x rows=A,B: go run ./scripts/compare s -->\n" +
		"2. Two? <!-- question q.two ask=text rows=A: go test ./s -->\n\n" +
		"<details><summary>Answer to question 1</summary>\n\nfirst\n</details>\n<details><summary>Answer to question 2</summary>\n\nsecond\n</details>\n" +
		"Predict this. <!-- question bad ask=text: -->\n## h\n<!-- question lone ask=text: go test ./s -->\n"
	qs, problems := PageQuestions("p.md", page)
	if len(qs) != 3 || qs[0].ID != "q.one" || qs[1].ID != "q.two" {
		t.Fatalf("questions %+v", qs)
	}
	if qs[0].Text != "Predict first:\n\n1. One?" || qs[1].Text != "Predict first:\n2. Two?" {
		t.Errorf("texts %q and %q", qs[0].Text, qs[1].Text)
	}
	if qs[0].Answer != "first" || qs[1].Answer != "second" || !slices.Equal(qs[0].Rows, []string{"A", "B"}) || qs[0].Ask != "x" {
		t.Errorf("answers %q and %q, rows %q, ask %q", qs[0].Answer, qs[1].Answer, qs[0].Rows, qs[0].Ask)
	}
	want := []string{"p.md:14: question bad: no command that runs", "p.md:16: question lone: its marker follows no Predict paragraph"}
	if len(problems) != 2 || !strings.HasPrefix(problems[0], want[0]) || !strings.HasPrefix(problems[1], want[1]) {
		t.Errorf("problems %q, want %q", problems, want)
	}
}

// markerProblems checks every marker's command of the pages under dir.
func markerProblems(t *testing.T, dir string) []string {
	qs, problems := Questions(dir)
	if len(qs) == 0 {
		problems = append(problems, "no question marker on the pages")
	}
	ids := map[string]string{}
	for _, q := range qs {
		at := fmt.Sprintf("%s:%d: question %s", q.Page, q.Line, q.ID)
		if seen, ok := ids[q.ID]; ok {
			problems = append(problems, fmt.Sprintf("%s: its name is taken by %s", at, seen))
		}
		ids[q.ID] = at
		if q.AnswerLine == 0 {
			problems = append(problems, at+": no answer (<details><summary>Answer) follows it")
		}
		for _, p := range commandProblems(dir, q) {
			problems = append(problems, at+": "+p)
		}
	}
	return problems
}

var (
	benchFlag = regexp.MustCompile(`-bench[ =]'([^']+)'`)
	pkgArg    = regexp.MustCompile(`(?:^| )\./([a-z0-9-]+)$`)
	benchFunc = regexp.MustCompile(`^Benchmark[A-Z]\w*$`)
)

// commandProblems checks that q's command names stages or packages that exist, and that its -bench
// pattern matches a benchmark function of each, and each of q's rows.
func commandProblems(dir string, q Question) []string {
	command := envPrefix.ReplaceAllString(q.Command, "")
	var dirs []string
	switch {
	case strings.HasPrefix(command, "go run ./scripts/compare "):
		fields := strings.Fields(strings.TrimPrefix(benchFlag.ReplaceAllString(command, ""), "go run ./scripts/compare "))
		for i := 0; i < len(fields); i++ {
			switch f := fields[i]; {
			case f == "--rounds" || f == "--benchtime" || f == "--go":
				i++
			case strings.HasPrefix(f, "-"):
			default:
				list, err := stages.Find(dir, f)
				if err != nil {
					return []string{err.Error()}
				}
				dirs = append(dirs, list[0].Dir)
			}
		}
		if len(dirs) == 0 {
			return []string{"its command compares no stage"}
		}
	case strings.HasPrefix(command, "go test ") || strings.HasPrefix(command, "go run ./scripts/"):
		if m := pkgArg.FindStringSubmatch(command); m != nil {
			dirs = append(dirs, m[1])
		} else if name, _, _ := strings.Cut(strings.TrimPrefix(command, "go run ./scripts/"), " "); !strings.HasPrefix(command, "go test ") {
			if _, err := os.Stat(filepath.Join(dir, "scripts", name, "main.go")); err != nil {
				return []string{"no command scripts/" + name}
			}
		}
	default:
		return []string{"its command is neither go run ./scripts/... nor go test"}
	}
	m := benchFlag.FindStringSubmatch(command)
	if m == nil {
		if len(q.Rows) > 0 {
			return []string{"rows= without a -bench pattern that measures them"}
		}
		return nil
	}
	var problems []string
	for _, d := range dirs {
		funcs := benchmarks(filepath.Join(dir, d))
		top := regexp.MustCompile(SplitBench(m[1])[0])
		if !slices.ContainsFunc(funcs, top.MatchString) {
			problems = append(problems, fmt.Sprintf("-bench %s matches no benchmark of %s (%s)", m[1], d, strings.Join(funcs, ", ")))
		}
	}
	for _, row := range q.Rows {
		if !RunsRow(m[1], row) {
			problems = append(problems, fmt.Sprintf("row %s: -bench %s does not measure it", row, m[1]))
		}
	}
	return problems
}

// benchmarks lists the benchmark functions of the Go test files in dir.
func benchmarks(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go")) // a pattern without errors
	var names []string
	for _, f := range files {
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range parsed.Decls {
			if name := declName(d); benchFunc.MatchString(name) {
				names = append(names, name)
			}
		}
	}
	return names
}

// declName is the name of a function that is no method, or "".
func declName(d ast.Decl) string {
	if f, ok := d.(*ast.FuncDecl); ok && f.Recv == nil {
		return f.Name.Name
	}
	return ""
}

// Unfolded names each generated block that sits between a question's marker and its answer
// without the fold (Fold as its first line), as "page:line: block NAME ...".
func Unfolded(page, text string) []string {
	qs, _ := PageQuestions(page, text)
	lines := strings.Split(text, "\n")
	var found []string
	seen := map[int]bool{}
	for _, q := range qs {
		if q.AnswerLine == 0 {
			continue
		}
		for i := q.Line; i < q.AnswerLine-1; i++ {
			m := generated.FindStringSubmatch(lines[i])
			if m == nil || m[1] != "BEGIN" || seen[i] || folded(lines, i) {
				continue
			}
			seen[i] = true
			found = append(found, fmt.Sprintf("%s:%d: block %s shows the answer to question %s (line %d) before its answer (line %d): fold it",
				page, i+1, m[2], q.ID, q.Line, q.AnswerLine))
		}
	}
	return found
}

// SplitBench splits a -bench pattern at the slashes outside brackets and parentheses, as go test does.
func SplitBench(pattern string) []string {
	var parts []string
	depth, from := 0, 0
	for i, r := range pattern {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '/':
			if depth == 0 {
				parts, from = append(parts, pattern[from:i]), i+1
			}
		}
	}
	return append(parts, pattern[from:])
}

// RunsRow reports whether the -bench pattern runs row (ListByRole/users=10000/matches=100).
func RunsRow(pattern, row string) bool {
	parts, names := SplitBench(pattern), strings.Split(row, "/")
	names[0] = "Benchmark" + names[0]
	for i, name := range names {
		if i >= len(parts) {
			return true
		}
		re, err := regexp.Compile(parts[i])
		if err != nil || !re.MatchString(name) {
			return false
		}
	}
	return true
}
