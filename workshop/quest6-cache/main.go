// Command quest6-cache serves the user list API from stage1-index's role
// index through the case study's cache sketch: the starting point of side
// quest 6 in WORKSHOP.md. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("quest6-cache", New) }
