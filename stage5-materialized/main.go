// Command stage5-materialized serves the user list from bytes encoded once,
// when each user is written: a read only concatenates them. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage5-materialized", New) }
