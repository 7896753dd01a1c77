package org.jacap.bench.eval;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded TinyStories-like text from a small vocabulary and a few sentence patterns, so a model
 * trained on TinyStories (stories260K) makes meaningful predictions on it. Story {@code i} depends
 * only on (seed, i).
 */
public final class SyntheticStories {
    private static final List<String> GIRLS = List.of("Lily", "Sue", "Mia", "Anna", "Lucy", "Amy", "Sara", "Emma");
    private static final List<String> BOYS = List.of("Tom", "Ben", "Max", "Tim", "Sam", "Jack", "Leo", "Bob");
    private static final List<String> ADJECTIVES =
            List.of("big", "little", "happy", "red", "shiny", "soft", "old", "funny", "small", "blue");
    private static final List<String> TOYS =
            List.of("ball", "toy car", "doll", "kite", "teddy bear", "box", "boat", "book", "hat", "drum");
    private static final List<String> ANIMALS = List.of("dog", "cat", "bird", "frog", "bunny", "duck", "fish", "bear");
    private static final List<String> PLACES =
            List.of("park", "garden", "house", "forest", "beach", "school", "lake", "farm");
    private static final List<String> FEELINGS =
            List.of("happy", "sad", "scared", "excited", "proud", "tired", "angry", "surprised");
    private static final List<String> ACTIONS =
            List.of("run", "jump", "play", "sing", "dance", "swim", "climb", "hide");
    private static final List<String> FOODS = List.of("cake", "apple", "cookie", "soup", "banana", "pie");

    private final long seed;

    public SyntheticStories(long seed) {
        this.seed = seed;
    }

    public String story(long index) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
        boolean girl = r.nextBoolean();
        String hero = pick(r, girl ? GIRLS : BOYS);
        String friend = pick(r, girl ? BOYS : GIRLS);
        String he = girl ? "she" : "he";
        String his = girl ? "her" : "his";
        String toy = pick(r, TOYS);
        String animal = pick(r, ANIMALS);
        String place = pick(r, PLACES);
        StringBuilder sb = new StringBuilder();
        sentence(
                sb,
                "Once upon a time, there was a " + pick(r, ADJECTIVES) + " " + (girl ? "girl" : "boy") + " named "
                        + hero + ".");
        sentence(sb, cap(he) + " had a " + pick(r, ADJECTIVES) + " " + toy + ".");
        sentence(sb, hero + " liked to " + pick(r, ACTIONS) + " with " + his + " " + toy + " every day.");
        int middle = 4 + r.nextInt(6);
        for (int i = 0; i < middle; i++) {
            switch (r.nextInt(8)) {
                case 0 -> sentence(sb, "One day, " + hero + " went to the " + place + " with " + friend + ".");
                case 1 -> sentence(sb, "They saw a " + pick(r, ADJECTIVES) + " " + animal + ".");
                case 2 -> sentence(sb, "The " + animal + " wanted to " + pick(r, ACTIONS) + " too.");
                case 3 -> sentence(sb, "\"Can I play with your " + toy + "?\" asked " + friend + ".");
                case 4 -> sentence(sb, hero + " was very " + pick(r, FEELINGS) + ".");
                case 5 -> sentence(sb, cap(he) + " said, \"Let's share the " + toy + "!\"");
                case 6 -> sentence(sb, "Mom gave them a " + pick(r, FOODS) + " to eat.");
                default -> sentence(sb, "They played in the " + place + " all day and had a lot of fun.");
            }
        }
        sentence(sb, "At the end of the day, " + hero + " and " + friend + " were " + pick(r, FEELINGS) + ".");
        sentence(sb, "They learned that sharing is good.");
        return sb.toString();
    }

    private static void sentence(StringBuilder sb, String s) {
        if (!sb.isEmpty()) {
            sb.append(' ');
        }
        sb.append(s);
    }

    private static String pick(SplittableRandom r, List<String> words) {
        return words.get(r.nextInt(words.size()));
    }

    private static String cap(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
