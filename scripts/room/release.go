package main

import (
	"regexp"
	"slices"
	"strconv"
)

// goRelease is the release a go-version names, "go1.27" of "go1.27.3":
// encoding/json's engine, which stages 0 to 3 lean on, changes between
// releases, and not between their patches.
var goRelease = regexp.MustCompile(`^go1\.(\d+)`)

// releaseOf is the release of version, or "" when it names none (an older
// hand-in, or a development build).
func releaseOf(version string) string {
	return goRelease.FindString(version)
}

// releases lists the releases of rows, oldest first; a hand-in that names
// none counts as one release of its own, "".
func releases(rows []row) []string {
	var list []string
	for _, r := range rows {
		if rel := releaseOf(r.Release); !slices.Contains(list, rel) {
			list = append(list, rel)
		}
	}
	slices.SortFunc(list, func(a, b string) int { return minor(a) - minor(b) })
	return list
}

// minor is the release's minor number, -1 for none.
func minor(release string) int {
	m := goRelease.FindStringSubmatch(release)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// splitByRelease gives each of v's exercises the medians of the hands of
// each of its releases, as the view of those hands alone finds them: the
// same column of the same start, or none.
func (v *roomView) splitByRelease(hands []hand, isStart func(string) bool) {
	for _, release := range v.Releases {
		var some []hand
		for _, h := range hands {
			if releaseOf(h.values["go-version"]) == release {
				some = append(some, h)
			}
		}
		alone := view(some, isStart)
		for i := range v.Exercises {
			ex := &v.Exercises[i]
			by := exercise{Name: release, Colour: ex.Colour}
			for _, same := range alone.Exercises {
				if same.Name == ex.Name && same.Start == ex.Start {
					by = same
					by.Name, by.Colour = release, ex.Colour
				}
			}
			ex.ByRelease = append(ex.ByRelease, by)
		}
	}
}
