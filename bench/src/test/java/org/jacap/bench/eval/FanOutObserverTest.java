package org.jacap.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.jacap.kv.ForwardObserver;
import org.junit.jupiter.api.Test;

class FanOutObserverTest {

    @Test
    void droppedEntriesReachEveryObserver() {
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        ForwardObserver fan = new FanOutObserver(List.of(recorder(a), recorder(b)));
        fan.onEntriesDropped(3, 1, 7, 504);
        assertThat(a).containsExactly("3/1/7/504");
        assertThat(b).containsExactly("3/1/7/504");
    }

    private static ForwardObserver recorder(List<String> calls) {
        return new ForwardObserver() {
            @Override
            public void onEntriesDropped(int layer, int kvHead, int dropped, int remaining) {
                calls.add(layer + "/" + kvHead + "/" + dropped + "/" + remaining);
            }
        };
    }
}
