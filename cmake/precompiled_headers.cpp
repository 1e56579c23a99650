// The source of the owner targets of the precompiled header (cmake/PrecompiledHeaders.cmake):
// CMake compiles the header for them; this file adds nothing.
