package org.jacap.bench.eval;

import java.util.List;
import org.jacap.kv.ForwardObserver;

/** Forwards every callback to several observers (policy groups that cannot share statistics). */
final class FanOutObserver implements ForwardObserver {
    private final ForwardObserver[] observers;
    private final ForwardObserver[] attention;

    FanOutObserver(List<? extends ForwardObserver> observers) {
        this.observers = observers.toArray(ForwardObserver[]::new);
        this.attention =
                observers.stream().filter(ForwardObserver::wantsAttention).toArray(ForwardObserver[]::new);
    }

    @Override
    public void onQuery(int layer, int position, float[] qPre, int preOff, float[] qPost, int postOff) {
        for (ForwardObserver o : observers) {
            o.onQuery(layer, position, qPre, preOff, qPost, postOff);
        }
    }

    @Override
    public boolean wantsAttention() {
        return attention.length > 0;
    }

    @Override
    public void onAttention(int layer, int queryHead, int position, float[] probs, int off, int len) {
        for (ForwardObserver o : attention) {
            o.onAttention(layer, queryHead, position, probs, off, len);
        }
    }

    @Override
    public void onEntriesDropped(int layer, int kvHead, int dropped, int remaining) {
        for (ForwardObserver o : observers) {
            o.onEntriesDropped(layer, kvHead, dropped, remaining);
        }
    }

    @Override
    public void onLayerEnd(int layer, int firstPosition, int tokens) {
        for (ForwardObserver o : observers) {
            o.onLayerEnd(layer, firstPosition, tokens);
        }
    }
}
