package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"example.com/userperf/scripts/internal/stages"
)

// exercise is a section of WORKSHOP.md with hints: an exercise or a side quest.
type exercise struct {
	number, title, from string // from: the stage that its new-stage command starts from
	hints               []string
}

var (
	section  = regexp.MustCompile(`^#{2,3} (?:Exercise|Side quest) (\d+): (.*)`)
	newStage = regexp.MustCompile(`new-stage \S+ --from (\S+)`)
)

// exercises reads the exercises of WORKSHOP.md under root, with their hints: the items of the list
// after **Hints.**, each with the lines that continue it.
func exercises(root string) []exercise {
	data, _ := os.ReadFile(filepath.Join(root, "WORKSHOP.md")) // no workshop page, no exercise
	var list []exercise
	inHints := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\r\n")
		switch m := section.FindStringSubmatch(line); {
		case m != nil:
			list, inHints = append(list, exercise{number: m[1], title: m[2]}), false
		case len(list) == 0:
		case line == "**Hints.**":
			inHints = true
		case inHints && strings.HasPrefix(line, "- "):
			e := &list[len(list)-1]
			e.hints = append(e.hints, strings.TrimPrefix(line, "- "))
		case inHints && strings.HasPrefix(line, "  ") && len(list[len(list)-1].hints) > 0:
			e := &list[len(list)-1]
			e.hints[len(e.hints)-1] += " " + strings.TrimSpace(line)
		case inHints && line != "":
			inHints = false
		default:
			if m := newStage.FindStringSubmatch(line); m != nil && list[len(list)-1].from == "" {
				list[len(list)-1].from = path.Clean(m[1])
			}
		}
	}
	return slices.DeleteFunc(list, func(e exercise) bool { return len(e.hints) == 0 })
}

// exerciseOf is the exercise that the learner's stage in dir was made for: the one whose start
// lies on the stage's chain of origins.
func exerciseOf(root string, list []exercise, dir string) (exercise, bool) {
	for walk, n := stages.Origin(root, dir), 0; walk != "" && n < 10; walk, n = stages.Origin(root, walk), n+1 {
		if i := slices.IndexFunc(list, func(e exercise) bool { return e.from == walk }); i >= 0 {
			return list[i], true
		}
	}
	return exercise{}, false
}

// hint prints the next hint of the exercise named (its number, or a stage of the learner's),
// else of the learner's stage changed last: one per call.
func (g *guide) hint(args []string) {
	list := exercises(g.c.Root)
	if len(list) == 0 {
		g.c.Fatal(fmt.Errorf("no exercise with hints in WORKSHOP.md"))
	}
	name := ""
	if len(args) > 0 {
		name = args[0]
	} else if mine := stages.Mine(g.c.Root); len(mine) > 0 {
		slices.SortFunc(mine, func(a, b string) int { return modTime(b).Compare(modTime(a)) })
		name = mine[0]
	}
	i := slices.IndexFunc(list, func(e exercise) bool { return e.number == name })
	var e exercise
	if i >= 0 {
		e = list[i]
	} else if found, ok := exerciseOf(g.c.Root, list, name); ok && name != "" {
		e = found
	} else {
		var names []string
		for _, e := range list {
			names = append(names, e.number+" ("+e.title+")")
		}
		g.c.Usage("name an exercise: go run ./scripts/learn hint 1; the exercises: %s", strings.Join(names, ", "))
	}
	key := "exercise " + e.number
	shown := g.s.Hints[key]
	if shown >= len(e.hints) {
		fmt.Printf("learn: exercise %s (%s): all %d hints shown; WORKSHOP.md's answer is next to them\n", e.number, e.title, len(e.hints))
		return
	}
	fmt.Printf("Exercise %s (%s), hint %d of %d:\n\n   %s\n", e.number, e.title, shown+1, len(e.hints), e.hints[shown])
	g.s.Hints[key] = shown + 1
	g.c.Fatal(g.s.save())
	if shown+1 < len(e.hints) {
		fmt.Println("\nThe next, on the next call of go run ./scripts/learn hint.")
	}
}

// modTime is when the stage's folder last changed, or the zero time.
func modTime(dir string) (t time.Time) {
	info, err := os.Stat(dir)
	if err == nil {
		t = info.ModTime()
	}
	return t
}

// exercisesPassed counts the exercises of WORKSHOP.md passed by a stage of the learner's: its last
// check, which scripts/check keeps in results/check/STAGE/verdict.txt (as handin reads it), passed.
func exercisesPassed(root string) (passed, all int) {
	list := exercises(root)
	done := map[string]bool{}
	for _, dir := range stages.Mine(root) {
		verdict, _ := os.ReadFile(filepath.Join(root, "results", "check", dir, "verdict.txt")) // no check, not passed
		if e, ok := exerciseOf(root, list, dir); ok && strings.HasPrefix(string(verdict), "passed") {
			done[e.number] = true
		}
	}
	return len(done), len(list)
}
