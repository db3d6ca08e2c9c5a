package provenance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Figure is one generated block, or one chart, that Check looked at.
type Figure struct {
	Where string // README.md, block stages; docs/charts/time-per-stage.svg
	// Stale says why the figure may not describe the code at HEAD, or is
	// empty if it does.
	Stale string
}

// Report is what Check found.
type Report struct {
	Figures []Figure
	// Uncommitted lists the measured files that differ from HEAD: no
	// figure can have measured them yet.
	Uncommitted []string
}

// OK reports whether every figure measured the code at HEAD and nothing
// measured differs from HEAD.
func (r *Report) OK() bool {
	for _, f := range r.Figures {
		if f.Stale != "" {
			return false
		}
	}
	return len(r.Uncommitted) == 0
}

// Check looks at every generated block of the markdown files under root
// and every chart in root/docs/charts, and says which ones recorded no
// commit or a commit after which the measured code changed.
func Check(root string) (*Report, error) {
	docs, err := git(root, "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.md", "docs/charts/*.svg")
	if err != nil {
		return nil, err
	}
	r := &Report{}
	stale := staleness{root: root, changes: map[string]string{}}
	for _, doc := range dedupe(lines(docs)) {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if os.IsNotExist(err) {
			continue // deleted and not yet committed
		}
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(doc, ".svg") {
			r.Figures = append(r.Figures, Figure{doc, stale.of(string(data))})
			continue
		}
		blocks, err := Blocks(string(data))
		for _, b := range blocks {
			r.Figures = append(r.Figures, Figure{doc + ", block " + b.Name, stale.of(b.Content)})
		}
		if err != nil {
			r.Figures = append(r.Figures, Figure{doc, err.Error()})
		}
	}
	if r.Uncommitted, err = uncommitted(root); err != nil {
		return nil, err
	}
	return r, stale.err
}

// staleness says why a figure is stale, asking git once per commit.
type staleness struct {
	root    string
	changes map[string]string // commit: why its figures are stale, or ""
	err     error
}

// of is why the figure with text is stale, or "" if every commit it
// records measured the code at HEAD.
func (s *staleness) of(text string) string {
	recs := commits(text)
	if len(recs) == 0 {
		return "records no commit"
	}
	for _, r := range recs {
		if r.uncommitted {
			return fmt.Sprintf("measured at %s %s: no commit holds that code", r.commit, Uncommitted)
		}
		why, ok := s.changes[r.commit]
		if !ok {
			why = s.changedSince(r.commit)
			s.changes[r.commit] = why
		}
		if why != "" {
			return why
		}
	}
	return ""
}

// changedSince says which measured files changed after commit, or "".
func (s *staleness) changedSince(commit string) string {
	if _, err := git(s.root, "rev-parse", "--verify", "--quiet", commit+"^{commit}"); err != nil {
		return fmt.Sprintf("records commit %s, which this repository does not have", commit)
	}
	files, err := changedSince(s.root, commit)
	if err != nil {
		s.err = err
		return err.Error()
	}
	if len(files) == 0 {
		return ""
	}
	return fmt.Sprintf("measured at %s; changed since: %s", commit, abbreviate(files, 4))
}

// abbreviate lists the first n of names and counts the others.
func abbreviate(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// dedupe drops repeated names: git lists a file that is both tracked and
// modified once, but an unmerged one several times.
func dedupe(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
