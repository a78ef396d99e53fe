// Package fedpb holds the federation protocol's generated protobuf and gRPC
// code (committed: a build needs no protoc).
package fedpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative federation.proto
