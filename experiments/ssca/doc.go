// Package ssca defines the SSCA paper's experiments: the sample- and
// feature-based federated learning figures on the swish network and the
// tuning of their step sizes.
package ssca
