package manifest

import "strings"

// suggest returns the candidate closest to word, or "" when none is close
// enough to be a plausible typo: the same word in another case, or within an
// edit distance (with transpositions) of 1 for short words and 2 otherwise.
func suggest(word string, candidates []string) string {
	lower := strings.ToLower(word)
	for _, c := range candidates {
		if strings.ToLower(c) == lower {
			return c
		}
	}
	limit := 1
	if len(word) > 4 {
		limit = 2
	}
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if d := editDistance(lower, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and swaps of adjacent characters cost one each.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: the swap rule looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
