// Package provenance ties every generated figure to the code it measured: a generated block of
// a markdown file, and a chart's footer, carry a Line ("Measured on ..., commit `8899ddb`, by
// `go run ./scripts/compare`, then `go run ./scripts/report`."), and Check lists those whose
// measured code changed since. A block written by hand needs only "commit `<short sha>`".
package provenance

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/scanner"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/pages"
	"example.com/userperf/scripts/internal/stages"
)

// Uncommitted follows the commit of a measurement of code that differed from it.
const Uncommitted = "(with uncommitted changes)"

// Line is the provenance line of figures measured with config, their result file's header, and
// turned into a table or chart by the commands then: never the result files, which a clone lacks.
func Line(config map[string]string, then ...string) string {
	get := func(key string) string { return cmp.Or(config[key], "unknown") }
	machine := cmp.Or(config["machine-cpu"], get("cpu")) // go test's cpu line, in a file without the header
	if cores := config["machine-cores"]; cores != "" {
		machine += " (" + cores + " cores)"
	}
	date := get("date")
	if t, err := time.Parse(time.RFC3339, date); err == nil {
		date = t.UTC().Format("2006-01-02T15:04Z")
	}
	commit := "commit unknown"
	if m := commitValue.FindStringSubmatch(config["commit"]); m != nil {
		commit = "commit `" + m[1] + "`" + m[2]
	}
	by := strings.Join(append([]string{get("command")}, then...), "`, then `")
	return fmt.Sprintf("Measured on %s, %s, %s, %s, by `%s`.", machine, get("go-version"), date, commit, by)
}

// commitValue is a header's commit: "8899ddb", maybe followed by Uncommitted; recordedCommit, a
// figure's; blocks, a markdown file's generated blocks; infinite, benchstat's interval of too few samples.
var (
	commitValue    = regexp.MustCompile(`^([0-9a-f]{4,40})( ` + regexp.QuoteMeta(Uncommitted) + `)?$`)
	recordedCommit = regexp.MustCompile("commit `([0-9a-f]{4,40})`( " + regexp.QuoteMeta(Uncommitted) + ")?")
	blocks         = regexp.MustCompile(`(?s)<!-- BEGIN GENERATED: (\S+) -->\n?(.*?)<!-- END GENERATED: (\S+) -->`)
	infinite       = regexp.MustCompile(`±\s*∞`)
)

// Block is the text between <!-- BEGIN GENERATED: name --> and <!-- END GENERATED: name -->.
type Block struct{ Name, Content string }

// UpdateFile replaces blocks in the markdown file at path. A block without one pair of markers,
// or with an interval that benchstat could not compute, is an error, after the others are replaced.
func UpdateFile(path string, update ...Block) error {
	old, err := os.ReadFile(path)
	doc := string(old)
	for _, b := range update {
		if loc := infinite.FindStringIndex(b.Content); loc != nil {
			line := 1 + strings.Count(b.Content[:loc[0]], "\n")
			err = errors.Join(err, fmt.Errorf("%s: block %s, line %d: an interval of too few samples (%s): measure more rounds, "+
				"or show the medians alone; the block is left as it was", path, b.Name, line, b.Content[loc[0]:loc[1]]))
			continue
		}
		begin, end := "<!-- BEGIN GENERATED: "+b.Name+" -->", "<!-- END GENERATED: "+b.Name+" -->"
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i || strings.Count(doc, begin) != 1 || strings.Count(doc, end) != 1 {
			err = errors.Join(err, fmt.Errorf("%s: want one %s followed by one %s", path, begin, end))
			continue
		}
		doc = doc[:i+len(begin)] + "\n" + b.Content + doc[j:]
	}
	// A block between a question and its answer folds, so that a learner measures before reading it.
	doc = pages.FoldBlocks(path, doc)
	if doc == string(old) {
		return err
	}
	return errors.Join(err, os.WriteFile(path, []byte(doc), 0o644))
}

// harness is the code that measures besides the stages: what builds and runs the benchmarks and
// the servers, and the commands that call it. The commands' plumbing (harness/cmd.go), reading and
// drawing results, the tests, prose and pictures do not change a measurement; nor do apitest's
// suites, which only tests run (a benchmark calls apitest.go, internals.go and plain).
var harness = []string{
	":(glob)common/api/**", ":(glob)common/bench/**", ":(glob)common/user/**", ":(glob)common/apitest/plain/**",
	"common/apitest/apitest.go", "common/apitest/internals.go", "common/go.mod", "common/go.sum", ":(glob)peers/**", ":(glob)scripts/internal/harness/**", ":(glob)scripts/internal/stageserver/**",
	":(glob)scripts/compare/**", ":(glob)scripts/serialize/**", ":(glob)scripts/profile/**", ":(glob)scripts/load/**",
	":(exclude)scripts/internal/harness/cmd.go", ":(exclude,glob)scripts/**/*_test.go",
}

// built says whether a file of the measured folders goes into a build: Go files, go.mod and go.sum
// (no measured package embeds a file); prose, pictures and a stray copy do not.
func built(path string) bool {
	base := filepath.Base(path)
	return strings.HasSuffix(base, ".go") || base == "go.mod" || base == "go.sum"
}

// sameCode says whether two versions of a file build the same program: for Go, the same tokens
// but for comments (a directive such as //go:noinline counts), so that a comment or gofmt does not
// make a figure stale; for go.mod and go.sum, the same bytes.
func sameCode(path string, a, b []byte) bool {
	if !strings.HasSuffix(path, ".go") {
		return bytes.Equal(a, b)
	}
	return slices.Equal(goTokens(a), goTokens(b))
}

// goTokens returns src's tokens, less its comments but directives. A semicolon is one token
// however written, and none before a closing bracket, where Go lets a line end or not.
func goTokens(src []byte) []string {
	var s scanner.Scanner
	s.Init(token.NewFileSet().AddFile("", -1, len(src)), src, nil, scanner.ScanComments)
	var tokens []string
	for {
		_, tok, lit := s.Scan()
		switch {
		case tok == token.EOF:
			return tokens
		case tok == token.COMMENT && !directive.MatchString(lit):
			continue
		case tok == token.SEMICOLON:
			lit = ";"
		case (tok == token.RBRACE || tok == token.RPAREN) && len(tokens) > 0 && tokens[len(tokens)-1] == ";":
			tokens = tokens[:len(tokens)-1]
		}
		tokens = append(tokens, cmp.Or(lit, tok.String()))
	}
}

// directive is a comment that the go command or the compiler reads.
var directive = regexp.MustCompile(`^(//go:|//line |/\*line |//export |// \+build )`)

// codeChanged says whether the file at path differs in code between two revisions, to "" being
// the work tree.
func codeChanged(root, path, from, to string) bool {
	if !built(path) {
		return false
	}
	read := func(rev string) ([]byte, error) {
		if rev == "" {
			return os.ReadFile(filepath.Join(root, path))
		}
		return exec.Command("git", "-C", root, "show", rev+":"+path).Output()
	}
	a, err := read(from)
	b, err2 := read(to)
	return err != nil || err2 != nil || !sameCode(path, a, b) // a file missing on one side is new code
}

// measured returns the git pathspecs of the code that the figures measure (the stages' Go files,
// go.mod and go.sum, and the harness) and the files among them that differ from HEAD.
func measured(root string) (specs, uncommitted []string, err error) {
	list, err := stages.Shown(root)
	for _, s := range list {
		specs = append(specs, ":(glob)"+s.Dir+"/**/*.go", ":(glob)"+s.Dir+"/go.mod", ":(glob)"+s.Dir+"/go.sum")
	}
	specs = append(specs, harness...)
	// No optional locks: others may be running git in this tree.
	args := []string{"--no-optional-locks", "status", "--porcelain", "--no-renames", "--untracked-files=all", "--"}
	out, err2 := git(root, append(args, specs...)...)
	for _, line := range lines(out) {
		if path := line[min(3, len(line)):]; codeChanged(root, path, "HEAD", "") { // after the two status letters
			uncommitted = append(uncommitted, path)
		}
	}
	return specs, uncommitted, errors.Join(err, err2)
}

// Commit is what a measurement made now records: HEAD's short hash, then Uncommitted if the measured code differs.
func Commit(root string) (string, error) {
	_, changed, err := measured(root)
	head, err2 := git(root, "rev-parse", "--short", "HEAD")
	if err = errors.Join(err, err2); err == nil && len(changed) > 0 {
		head += " " + Uncommitted
	}
	return head, err
}

// Check prints the generated blocks under root and the charts in docs/charts that may not describe
// the code at HEAD, then the measured files that differ from HEAD, and reports whether there were none.
func Check(w io.Writer, root string) (bool, error) {
	specs, changed, err := measured(root)
	docs, err2 := git(root, "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md", "docs/charts/*.svg")
	if err = errors.Join(err, err2); err != nil {
		return false, err
	}
	figures, stale := 0, 0
	judge := func(where, why string) {
		if figures++; why != "" {
			stale++
			fmt.Fprintf(w, "stale: %s: %s\n", where, why)
		}
	}
	for _, doc := range slices.Compact(lines(docs)) { // an unmerged file is listed once per side
		data, err := os.ReadFile(filepath.Join(root, doc))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted and not yet committed
		} else if err != nil {
			return false, err
		}
		if strings.HasSuffix(doc, ".svg") {
			judge(doc, staleness(root, string(data), specs))
			continue
		}
		found := blocks.FindAllStringSubmatch(string(data), -1)
		for _, b := range found {
			why := staleness(root, b[2], specs)
			if b[1] != b[3] {
				why = "ends at the end marker of " + b[3]
			}
			judge(doc+", block "+b[1], why)
		}
		if strings.Count(string(data), "<!-- BEGIN GENERATED: ") != len(found) {
			judge(doc, "a BEGIN GENERATED marker has no END GENERATED marker")
		}
	}
	for _, file := range changed {
		fmt.Fprintf(w, "uncommitted: %s\n", file)
	}
	fmt.Fprintf(w, "report: %d of %d generated blocks and charts are stale, %d measured files differ from HEAD", stale, figures, len(changed))
	if stale+len(changed) > 0 {
		fmt.Fprint(w, "; commit the code, then measure again (go run ./scripts/compare --thorough, go run ./scripts/load, go run ./scripts/report --profiles)")
	}
	fmt.Fprintln(w)
	return stale+len(changed) == 0, nil
}

// staleness says why a figure's text may not describe the measured code at HEAD, or "".
func staleness(root, text string, specs []string) string {
	recorded := recordedCommit.FindAllStringSubmatch(text, -1)
	if len(recorded) == 0 {
		return "records no commit"
	}
	for _, m := range recorded {
		if m[2] != "" {
			return fmt.Sprintf("measured at %s%s: no commit holds that code", m[1], m[2])
		}
		if why := changedSince(root, m[1], specs); why != "" {
			return why
		}
	}
	return ""
}

// Fresh says why a measurement that recorded commit no longer measures the code, or "" (scripts/profile reuses one).
func Fresh(root, commit string) (string, error) {
	specs, changed, err := measured(root)
	if err != nil || len(changed) > 0 || strings.HasSuffix(commit, Uncommitted) {
		return "measured or current code is uncommitted", err
	}
	return changedSince(root, commit, specs), nil
}

// changedSince says which measured files changed in code after commit, or "".
func changedSince(root, commit string, specs []string) string {
	out, err := git(root, append([]string{"diff", "--name-only", "--no-renames", commit, "HEAD", "--"}, specs...)...)
	files := slices.DeleteFunc(lines(out), func(path string) bool { return !codeChanged(root, path, commit, "HEAD") })
	switch {
	case err != nil:
		return fmt.Sprintf("records commit %s, which git cannot compare with HEAD", commit)
	case len(files) == 0:
		return ""
	case len(files) > 4:
		files = append(files[:4:4], fmt.Sprintf("and %d more", len(files)-4))
	}
	return fmt.Sprintf("measured at %s; changed since: %s", commit, strings.Join(files, ", "))
}

// git runs git in root and returns its output without the final newline.
func git(root string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	if e, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(e.Stderr)))
	}
	return strings.TrimRight(string(out), "\n"), err
}

// lines splits text into its lines; empty text has none.
func lines(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return r == '\n' })
}
