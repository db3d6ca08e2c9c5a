package pages

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Paths are the pages of the repository at root: README.md, docs/*.md,
// WORKSHOP.md, workshop/**/README.md and scripts/README.md.
func Paths(root string) ([]string, error) {
	paths := []string{"README.md", "WORKSHOP.md", filepath.Join("scripts", "README.md")}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, d := range docs {
		rel, _ := filepath.Rel(root, d)
		paths = append(paths, rel)
	}
	walk := filepath.WalkDir(filepath.Join(root, "workshop"), func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "README.md" {
			rel, _ := filepath.Rel(root, path)
			paths = append(paths, rel)
		}
		return err
	})
	if err == nil && !os.IsNotExist(walk) {
		err = walk
	}
	return paths, err
}

// Figure is a number with a unit of time, size, share or speed typed on a page, outside the
// blocks that report writes, where it stands.
type Figure struct {
	Line, Column int    // from 1; the column in bytes
	Text         string // the number and its unit: "123.4µs"
	Of           string // the whole line, without its end
}

// figure is a number (1, 1,000, 12.5, ±3, -23.32) and a unit after it, at most one space
// apart, neither inside a longer word: "go1.27s" is no figure, nor "3 seconds".
var figure = regexp.MustCompile(`(?:^|[^\pL\pN_.])([-+±]?\d[\d,]*(?:\.\d+)?[ \x{a0}]?` +
	`(?:ns|µs|μs|us|ms|sec|s|min|%|x|×|B/op|allocs/op|allocs|req/s|KiB|KB|MiB|MB|GiB|GB|B))(?:[^\pL\pN_/]|$)`)

// Figures are the figures of page, outside its generated blocks.
func Figures(page string) []Figure {
	var found []Figure
	inside := false
	for i, line := range strings.Split(page, "\n") {
		visible := []byte(line) // the line with what lies inside a block blanked
		from := 0
		for _, m := range generated.FindAllStringSubmatchIndex(line, -1) {
			if inside {
				blank(visible[from:m[1]])
			}
			inside, from = line[m[2]:m[3]] == "BEGIN", m[1]
		}
		if inside {
			blank(visible[from:])
		}
		text := string(visible)
		// Each match takes the character before and after its figure: search
		// again from the figure's end, so that "1ms 2ms" gives two.
		for at := 0; at < len(text); {
			m := figure.FindStringSubmatchIndex(text[at:])
			if m == nil {
				break
			}
			found = append(found, Figure{i + 1, at + m[2] + 1, text[at+m[2] : at+m[3]], line})
			at += m[3]
		}
	}
	return found
}

func blank(b []byte) {
	for i := range b {
		b[i] = ' '
	}
}
