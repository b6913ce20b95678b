package dev.deja.view.internal;

import java.math.BigInteger;
import java.util.Comparator;

/**
 * Orders names as people count: runs of digits compare by value, the rest by text, so {@code n2} comes before
 * {@code n10} and {@code c3} before {@code c20}. Names equal by that rule (such as {@code n01} and {@code n1})
 * fall back to plain text order, so the order is total.
 */
final class NaturalOrder implements Comparator<String> {
    static final NaturalOrder INSTANCE = new NaturalOrder();

    private NaturalOrder() {
    }

    @Override
    public int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char x = a.charAt(i);
            char y = b.charAt(j);
            if (Character.isDigit(x) && Character.isDigit(y)) {
                int endA = digitsEnd(a, i);
                int endB = digitsEnd(b, j);
                int byValue = new BigInteger(a.substring(i, endA)).compareTo(new BigInteger(b.substring(j, endB)));
                if (byValue != 0) {
                    return byValue;
                }
                i = endA;
                j = endB;
            } else {
                if (x != y) {
                    return Character.compare(x, y);
                }
                i++;
                j++;
            }
        }
        int byLength = Integer.compare(a.length() - i, b.length() - j);
        return byLength != 0 ? byLength : a.compareTo(b);
    }

    private static int digitsEnd(String text, int from) {
        int end = from;
        while (end < text.length() && Character.isDigit(text.charAt(end))) {
            end++;
        }
        return end;
    }
}
