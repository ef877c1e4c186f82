// SPDX-License-Identifier: MIT
// Carries the precompiled header that every test suite reuses (tests/CMakeLists.txt); it holds
// no tests of its own, so running it reports zero tests.
