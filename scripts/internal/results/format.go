package results

import "golang.org/x/perf/benchunit"

// Duration formats a time in seconds as benchstat prints it, with at least
// three significant digits and an SI prefix: 178.9µs, 1.436ms, 20.90ns.
// Every table and chart uses it, so that one figure reads the same in all.
func Duration(sec float64) string { return benchunit.Scale(sec, benchunit.Decimal) + "s" }
