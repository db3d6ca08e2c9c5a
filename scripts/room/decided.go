package main

import (
	"regexp"
	"strings"
)

// exactCount is one count of a check's verdict that an exact count decided,
// as results.Comparison.Verdict words it: "49% fewer allocs/op", "0.5% fewer allocs/op".
var exactCount = regexp.MustCompile(`(\d+(?:\.\d+)?)% (fewer|more) (allocs|B)/op`)

// counted is what decided a verdict's clause about the start where the time
// could not tell: its first exact count, "−49% allocs" or "+12% B", or "" when
// the clause is decided in time, or by nothing.
func counted(clause string) string {
	if !strings.Contains(clause, "counted exactly") || !strings.Contains(clause, "cannot tell") {
		return ""
	}
	m := exactCount.FindStringSubmatch(clause)
	if m == nil {
		return ""
	}
	sign := "−"
	if m[2] == "more" {
		sign = "+"
	}
	return sign + m[1] + "% " + m[3]
}
