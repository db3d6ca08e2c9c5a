// Command stage1-index serves the user list API from a role -> users index
// that every write keeps up to date. See docs/stage1-index.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage1-index", New) }
