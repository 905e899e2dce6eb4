package segment

import (
	"math"
	"math/rand/v2"
)

// gmm is a full-covariance Gaussian mixture over CIELAB colours, the colour model of
// GrabCut. A mixture (rather than one mean colour) lets a striped backdrop or a
// two-tone product be described faithfully.
type gmm struct {
	weight  []float64
	mean    [][3]float64
	icov    [][9]float64
	logNorm []float64 // log(weight) − ½·log|Σ| − 1.5·log(2π)
}

// gmmMinVariance regularises covariances: synthetic or over-exposed regions have
// (near) zero variance, which would otherwise make densities infinite.
const gmmMinVariance = 6.0

// fitGMM fits k components to samples with a deterministic k-means++ start and a few
// Lloyd iterations (hard assignment, as in GrabCut). It returns nil for no samples.
func fitGMM(samples []Lab, k int, seed uint64) *gmm {
	if len(samples) == 0 {
		return nil
	}
	k = max(1, min(k, len(samples)))
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	centres := make([][3]float64, 0, k)
	first := samples[rng.IntN(len(samples))]
	centres = append(centres, [3]float64{float64(first.L), float64(first.A), float64(first.B)})
	d2 := make([]float64, len(samples))
	for len(centres) < k {
		sum := 0.0
		for i, s := range samples {
			best := math.MaxFloat64
			for _, c := range centres {
				best = min(best, sqDist(s, c))
			}
			d2[i] = best
			sum += best
		}
		if sum == 0 {
			break
		}
		r := rng.Float64() * sum
		pick := len(samples) - 1
		for i, v := range d2 {
			r -= v
			if r <= 0 {
				pick = i
				break
			}
		}
		s := samples[pick]
		centres = append(centres, [3]float64{float64(s.L), float64(s.A), float64(s.B)})
	}
	k = len(centres)
	assign := make([]int, len(samples))
	for range 6 {
		for i, s := range samples {
			assign[i] = nearest(s, centres)
		}
		var sums [][4]float64 = make([][4]float64, k)
		for i, s := range samples {
			c := &sums[assign[i]]
			c[0] += float64(s.L)
			c[1] += float64(s.A)
			c[2] += float64(s.B)
			c[3]++
		}
		for j := range centres {
			if sums[j][3] > 0 {
				centres[j] = [3]float64{sums[j][0] / sums[j][3], sums[j][1] / sums[j][3], sums[j][2] / sums[j][3]}
			}
		}
	}
	for i, s := range samples {
		assign[i] = nearest(s, centres)
	}
	return gmmFromAssignment(samples, assign, k)
}

func sqDist(s Lab, c [3]float64) float64 {
	dl, da, db := float64(s.L)-c[0], float64(s.A)-c[1], float64(s.B)-c[2]
	return dl*dl + da*da + db*db
}

func nearest(s Lab, centres [][3]float64) int {
	best, bi := math.MaxFloat64, 0
	for j, c := range centres {
		if d := sqDist(s, c); d < best {
			best, bi = d, j
		}
	}
	return bi
}

// gmmFromAssignment estimates weights, means and covariances from a hard assignment.
func gmmFromAssignment(samples []Lab, assign []int, k int) *gmm {
	count := make([]float64, k)
	mean := make([][3]float64, k)
	for i, s := range samples {
		j := assign[i]
		count[j]++
		mean[j][0] += float64(s.L)
		mean[j][1] += float64(s.A)
		mean[j][2] += float64(s.B)
	}
	cov := make([][9]float64, k)
	for j := range k {
		if count[j] > 0 {
			for c := range 3 {
				mean[j][c] /= count[j]
			}
		}
	}
	for i, s := range samples {
		j := assign[i]
		d := [3]float64{float64(s.L) - mean[j][0], float64(s.A) - mean[j][1], float64(s.B) - mean[j][2]}
		for r := range 3 {
			for c := range 3 {
				cov[j][3*r+c] += d[r] * d[c]
			}
		}
	}
	m := &gmm{}
	total := float64(len(samples))
	for j := range k {
		if count[j] == 0 {
			continue
		}
		cv := cov[j]
		for e := range cv {
			cv[e] /= count[j]
		}
		for c := range 3 {
			cv[4*c] += gmmMinVariance
		}
		inv, det := invert3(cv)
		if !(det > 0) {
			continue
		}
		w := count[j] / total
		m.weight = append(m.weight, w)
		m.mean = append(m.mean, mean[j])
		m.icov = append(m.icov, inv)
		m.logNorm = append(m.logNorm, math.Log(w)-0.5*math.Log(det)-1.5*math.Log(2*math.Pi))
	}
	if len(m.weight) == 0 {
		return nil
	}
	return m
}

// invert3 inverts a 3×3 row-major matrix, returning the inverse and the determinant.
func invert3(m [9]float64) ([9]float64, float64) {
	a, b, c := m[0], m[1], m[2]
	d, e, f := m[3], m[4], m[5]
	g, h, i := m[6], m[7], m[8]
	A := e*i - f*h
	B := -(d*i - f*g)
	C := d*h - e*g
	det := a*A + b*B + c*C
	if det == 0 {
		return [9]float64{}, 0
	}
	inv := 1 / det
	return [9]float64{
		A * inv, -(b*i - c*h) * inv, (b*f - c*e) * inv,
		B * inv, (a*i - c*g) * inv, -(a*f - c*d) * inv,
		C * inv, -(a*h - b*g) * inv, (a*e - b*d) * inv,
	}, det
}

// nll is the negative log-likelihood of colour s under the mixture.
func (m *gmm) nll(s Lab) float64 {
	best := math.Inf(-1)
	var terms [16]float64
	n := len(m.weight)
	for j := range n {
		mu := m.mean[j]
		x, y, z := float64(s.L)-mu[0], float64(s.A)-mu[1], float64(s.B)-mu[2]
		ic := &m.icov[j]
		q := x*(ic[0]*x+ic[1]*y+ic[2]*z) + y*(ic[3]*x+ic[4]*y+ic[5]*z) + z*(ic[6]*x+ic[7]*y+ic[8]*z)
		t := m.logNorm[j] - 0.5*q
		if j < len(terms) {
			terms[j] = t
		}
		best = max(best, t)
	}
	sum := 0.0
	for j := range min(n, len(terms)) {
		sum += math.Exp(terms[j] - best)
	}
	return -(best + math.Log(sum))
}
