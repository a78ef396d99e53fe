// Package stochastic implements the mini-batch stochastic successive convex
// approximation (SSCA) federated learning algorithms of Ye & Cui
// ("Federated learning via SSCA", ../shared/papers/ssca-federated-optimization.txt)
// with the surrogates of their application examples (Section V), and the
// SGD baselines they are compared with:
//
//   - Algorithm 1 (sample-based, Problem (27): F(w) + λ‖w‖²): clients send
//     mini-batch gradient sums; the server runs recursions (30)-(31) with the
//     estimates (33)-(34) and the closed form (35)-(36);
//   - Algorithm 2 (sample-based, Problem (37): min ‖w‖² s.t. F(w) ≤ U): also
//     the loss sums (32); the server solves (38) by Lemma 1, (39)-(42);
//   - Algorithms 3 and 4: the same two problems with features split over
//     clients (Steps 3-6 of Algorithm 3: partial pre-activations exchanged
//     between clients, gradient blocks sent to the server);
//   - FedAvg (local SGD, weighted averaging) and feature-based SGD (Remark 2).
//
// Every iterate is updated by (5), w ← (1-γ_t) w + γ_t w̄, with
// ρ_t = a1/t^α and γ_t = a2/t^(α+offset) (Schedule). The paper's conditions
// (4) and (6) ask Σρ_t² < ∞, which α ≤ 0.5 (its α = 0.3, 0.4) violates; the
// schedules are the paper's nonetheless.
//
// Clients run as goroutines that own their data and exchange typed channel
// messages with the server (and, feature-based, with each other); the
// server reduces replies in client order, so results are a pure function of
// the inputs and the seed. Every float sent counts 8 bytes and every sample
// index 4 (Stats). The package does no I/O; progress goes to
// Settings.Recorder.
package stochastic
