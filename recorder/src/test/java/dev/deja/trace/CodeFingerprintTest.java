package dev.deja.trace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CodeFingerprintTest {
    @Test
    void of_aClass_digestsItsClassFileTheSameWayEveryTime() {
        String fingerprint = CodeFingerprint.of(CodeFingerprintTest.class);
        assertThat(fingerprint).matches("unknown \\(class sha256 [0-9a-f]{12}\\)");
        assertThat(CodeFingerprint.of(CodeFingerprintTest.class)).isEqualTo(fingerprint);
        assertThat(CodeFingerprint.classDigestOf(fingerprint)).get().isEqualTo(fingerprint.substring(22, 34));
    }

    @Test
    void of_twoClasses_differ() {
        assertThat(CodeFingerprint.classDigestOf(CodeFingerprint.of(CodeFingerprintTest.class)))
                .isNotEqualTo(CodeFingerprint.classDigestOf(CodeFingerprint.of(CodeFingerprint.class)));
    }

    @Test
    void classDigestOf_anOlderTracesVersion_isEmpty() {
        assertThat(CodeFingerprint.classDigestOf("unknown")).isEmpty();
        assertThat(CodeFingerprint.classDigestOf(null)).isEmpty();
    }
}
