// Command stage0-linear serves the user list API the way it is first
// written: every request scans every user. See docs/stage0-linear.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage0-linear", New) }
