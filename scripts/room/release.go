package main

import (
	"go/version"
	"slices"
)

// releaseOf is the release that version names, "go1.27" of "go1.27.3":
// encoding/json's engine, which stages 0 to 3 lean on, changes between
// releases, and not between their patches. It is "" when version names
// none (an older hand-in, or a development build).
func releaseOf(v string) string {
	return version.Lang(v) // "" for what is not a Go version
}

// releases lists the releases of rows, oldest first; a hand-in that names
// none counts as one release of its own, "", first.
func releases(rows []row) []string {
	var list []string
	for _, r := range rows {
		if rel := releaseOf(r.Release); !slices.Contains(list, rel) {
			list = append(list, rel)
		}
	}
	slices.SortFunc(list, version.Compare) // "" first: an invalid version sorts before every valid one
	return list
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
