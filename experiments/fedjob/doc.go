// Package fedjob is the job a served run carries (`fedcon serve`,
// `fedcon client`): one prox-AL problem (np, fair, qp) or a DRFL split,
// and what each side of the network loads of it.
package fedjob
