# Sourced by the experiments that take medians (07, 08, bench.sh).

# median: the median of the numbers on stdin, one per line (other lines, such as "-", are ignored); "-" when there
# is none, the mean of the middle two for an even count.
median() {
    awk '/^-?[0-9.]+([eE][-+]?[0-9]+)?$/' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
                                  else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
