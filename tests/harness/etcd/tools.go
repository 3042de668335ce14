//go:build tools

// The command scripts/k8s-harness builds; importing it pins its dependencies in go.sum.
package tools

import _ "go.etcd.io/etcd/server/v3"
