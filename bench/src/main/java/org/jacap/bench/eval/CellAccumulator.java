package org.jacap.bench.eval;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Collects one (policy, ratio) cell document by document, then summarises it with a shared bootstrap. */
public final class CellAccumulator {
    private final String policy;
    private final double ratio;
    private final List<DocumentFidelity> fidelity = new ArrayList<>();
    private final List<ProbeScore> probes = new ArrayList<>();
    private final List<ProbeScore> passkeys = new ArrayList<>();
    private int keptPerHead = -1;
    private long scoringNanos;

    public CellAccumulator(String policy, double ratio) {
        this.policy = policy;
        this.ratio = ratio;
    }

    public String policy() {
        return policy;
    }

    public double ratio() {
        return ratio;
    }

    public void add(DocumentFidelity doc, ProbeScore probe, int kept, long scoringNanos) {
        add(doc, probe, null, kept, scoringNanos);
    }

    /** One document; {@code probe} and {@code passkey} are null when those tasks do not run. */
    public void add(DocumentFidelity doc, ProbeScore probe, ProbeScore passkey, int kept, long scoringNanos) {
        fidelity.add(doc);
        if (probe != null) {
            probes.add(probe);
        }
        if (passkey != null) {
            passkeys.add(passkey);
        }
        // Documents share one context length, so the budget is the same for all.
        keptPerHead = kept;
        this.scoringNanos += scoringNanos;
    }

    public int documents() {
        return fidelity.size();
    }

    public CellSummary summarize(PairedBootstrap bootstrap) {
        int n = fidelity.size();
        if (n != bootstrap.documents()) {
            throw new IllegalStateException(
                    policy + " @ " + ratio + ": " + n + " documents, bootstrap has " + bootstrap.documents());
        }
        double[] kl = new double[n];
        double[] top1 = new double[n];
        double[] dNll = new double[n];
        double[][] tokenKl = new double[n][];
        for (int i = 0; i < n; i++) {
            DocumentFidelity d = fidelity.get(i);
            kl[i] = d.meanKl();
            top1[i] = d.top1Agreement();
            dNll[i] = d.deltaNll();
            tokenKl[i] = d.tokenKl();
        }
        Estimate p90 = bootstrap.estimate(idx -> {
            int total = 0;
            for (int i : idx) {
                total += tokenKl[i].length;
            }
            double[] pooled = new double[total];
            int at = 0;
            for (int i : idx) {
                System.arraycopy(tokenKl[i], 0, pooled, at, tokenKl[i].length);
                at += tokenKl[i].length;
            }
            Arrays.sort(pooled);
            return Percentile.ofSorted(pooled, 0.9);
        });
        CellSummary.ProbeSummary probe = null;
        if (!probes.isEmpty()) {
            if (probes.size() != n) {
                throw new IllegalStateException("probe ran on " + probes.size() + " of " + n + " documents");
            }
            probe = new CellSummary.ProbeSummary(
                    bootstrap.mean(
                            probes.stream().mapToDouble(ProbeScore::exactMatch).toArray()),
                    bootstrap.mean(probes.stream()
                            .mapToDouble(ProbeScore::tokenAccuracy)
                            .toArray()),
                    bootstrap.mean(
                            probes.stream().mapToDouble(ProbeScore::meanLogProb).toArray()));
        }
        Estimate passkey = null;
        if (!passkeys.isEmpty()) {
            if (passkeys.size() != n) {
                throw new IllegalStateException("passkey ran on " + passkeys.size() + " of " + n + " documents");
            }
            passkey = bootstrap.mean(
                    passkeys.stream().mapToDouble(ProbeScore::exactMatch).toArray());
        }
        return new CellSummary(
                policy,
                ratio,
                keptPerHead,
                bootstrap.mean(kl),
                p90,
                bootstrap.mean(top1),
                bootstrap.mean(dNll),
                probe,
                passkey,
                scoringNanos / 1e6 / n);
    }
}
