//! What CADNA 3.1.12 printed for chosen and random samples: the data of `{:#}`'s tests.

/// What CADNA 3.1.12 printed (`cout << x`, `strp(x)` and `x.str()` agree) for `double_st`
/// values built from these samples: (case, sample bits, output).
pub(super) const CADNA_F64: &[(&str, [u64; 3], &str)] = &[
    (
        "123.456 15 digits",
        [0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77],
        " 0.123456000000000E+003",
    ),
    (
        "-123.456 15 digits",
        [0xc05edd2f1a9fbe77, 0xc05edd2f1a9fbe77, 0xc05edd2f1a9fbe77],
        "-0.123456000000000E+003",
    ),
    (
        "0.802469135802469 15 digits",
        [0x3fe9add3c0ca4587, 0x3fe9add3c0ca4587, 0x3fe9add3c0ca4587],
        " 0.802469135802468E+000",
    ),
    (
        "1e-300 15 digits",
        [0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359],
        " 0.100000000000000E-299",
    ),
    (
        "1e300 15 digits",
        [0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x7e37e43c8800759c],
        " 0.100000000000000E+301",
    ),
    (
        "123.456 10 digits",
        [0x405edd2f1a9d17c2, 0x405edd2f1a9fbe77, 0x405edd2f1aa2652c],
        " 0.1234560000E+003",
    ),
    (
        "-123.456 10 digits",
        [0xc05edd2f1a9d17c2, 0xc05edd2f1a9fbe77, 0xc05edd2f1aa2652c],
        "-0.1234560000E+003",
    ),
    (
        "0.802469135802469 10 digits",
        [0x3fe9add3c0c810d7, 0x3fe9add3c0ca4587, 0x3fe9add3c0cc7a37],
        " 0.8024691358E+000",
    ),
    (
        "1e-300 10 digits",
        [0x01a56e1fc2f71c18, 0x01a56e1fc2f8f359, 0x01a56e1fc2faca9a],
        " 0.1000000000E-299",
    ),
    (
        "1e300 10 digits",
        [0x7e37e43c87fe683b, 0x7e37e43c8800759c, 0x7e37e43c880282fd],
        " 0.1000000000E+301",
    ),
    (
        "123.456 7 digits",
        [0x405edd2f10448bed, 0x405edd2f1a9fbe77, 0x405edd2f24faf101],
        " 0.1234559E+003",
    ),
    (
        "-123.456 7 digits",
        [0xc05edd2f10448bed, 0xc05edd2f1a9fbe77, 0xc05edd2f24faf101],
        "-0.1234559E+003",
    ),
    (
        "0.802469135802469 7 digits",
        [0x3fe9add3b82c7613, 0x3fe9add3c0ca4587, 0x3fe9add3c96814fc],
        " 0.8024691E+000",
    ),
    (
        "1e-300 7 digits",
        [0x01a56e1fbbc81ce1, 0x01a56e1fc2f8f359, 0x01a56e1fca29c9d2],
        " 0.1000000E-299",
    ),
    (
        "1e300 7 digits",
        [0x7e37e43c7ffc30e6, 0x7e37e43c8800759c, 0x7e37e43c9004ba53],
        " 0.1000000E+301",
    ),
    (
        "123.456 3 digits",
        [0x405edb9a90399e88, 0x405edd2f1a9fbe77, 0x405edec3a505de66],
        " 0.123E+003",
    ),
    (
        "-123.456 3 digits",
        [0xc05edb9a90399e88, 0xc05edd2f1a9fbe77, 0xc05edec3a505de66],
        "-0.123E+003",
    ),
    (
        "0.802469135802469 3 digits",
        [0x3fe9ac832c52a0c1, 0x3fe9add3c0ca4587, 0x3fe9af245541ea4d],
        " 0.802E+000",
    ),
    (
        "1e-300 3 digits",
        [0x01a56d06df3f3fe5, 0x01a56e1fc2f8f359, 0x01a56f38a6b2a6cd],
        " 0.100E-299",
    ),
    (
        "1e300 3 digits",
        [0x7e37e303614473f3, 0x7e37e43c8800759c, 0x7e37e575aebc7745],
        " 0.100E+301",
    ),
    (
        "123.456 1 digits",
        [0x405e3f290abb44e5, 0x405edd2f1a9fbe77, 0x405f7b352a843809],
        " 0.1E+003",
    ),
    (
        "-123.456 1 digits",
        [0xc05e3f290abb44e5, 0xc05edd2f1a9fbe77, 0xc05f7b352a843809],
        "-0.1E+003",
    ),
    (
        "0.802469135802469 1 digits",
        [0x3fe92a59c20de7fa, 0x3fe9add3c0ca4587, 0x3fea314dbf86a314],
        " 0.8E+000",
    ),
    (
        "1e-300 1 digits",
        [0x01a50066ce6eda00, 0x01a56e1fc2f8f359, 0x01a5dbd8b7830cb2],
        " 0.1E-299",
    ),
    (
        "1e300 1 digits",
        [0x7e3769e9668fcf6b, 0x7e37e43c8800759c, 0x7e385e8fa9711bcd],
        " 0.1E+301",
    ),
    (
        "ladder 1e-1",
        [0x3feccccccccccccd, 0x3ff0000000000000, 0x3ff199999999999a],
        " @.0",
    ),
    (
        "ladder 1e-2",
        [0x3fefae147ae147ae, 0x3ff0000000000000, 0x3ff028f5c28f5c29],
        " 0.1E+001",
    ),
    (
        "ladder 1e-3",
        [0x3feff7ced916872b, 0x3ff0000000000000, 0x3ff004189374bc6a],
        " 0.10E+001",
    ),
    (
        "ladder 1e-4",
        [0x3fefff2e48e8a71e, 0x3ff0000000000000, 0x3ff00068db8bac71],
        " 0.100E+001",
    ),
    (
        "ladder 1e-5",
        [0x3fefffeb074a771d, 0x3ff0000000000000, 0x3ff0000a7c5ac472],
        " 0.1000E+001",
    ),
    (
        "ladder 1e-6",
        [0x3feffffde7210be9, 0x3ff0000000000000, 0x3ff000010c6f7a0b],
        " 0.10000E+001",
    ),
    (
        "ladder 1e-7",
        [0x3fefffffca501acb, 0x3ff0000000000000, 0x3ff000001ad7f29b],
        " 0.100000E+001",
    ),
    (
        "ladder 1e-8",
        [0x3feffffffaa19c47, 0x3ff0000000000000, 0x3ff0000002af31dc],
        " 0.1000000E+001",
    ),
    (
        "ladder 1e-9",
        [0x3fefffffff768fa1, 0x3ff0000000000000, 0x3ff000000044b830],
        " 0.10000000E+001",
    ),
    (
        "ladder 1e-10",
        [0x3feffffffff24190, 0x3ff0000000000000, 0x3ff000000006df38],
        " 0.100000000E+001",
    ),
    (
        "ladder 1e-11",
        [0x3feffffffffea028, 0x3ff0000000000000, 0x3ff000000000afec],
        " 0.1000000000E+001",
    ),
    (
        "ladder 1e-12",
        [0x3fefffffffffdcd1, 0x3ff0000000000000, 0x3ff0000000001198],
        " 0.10000000000E+001",
    ),
    (
        "ladder 1e-13",
        [0x3feffffffffffc7b, 0x3ff0000000000000, 0x3ff00000000001c2],
        " 0.100000000000E+001",
    ),
    (
        "ladder 1e-14",
        [0x3fefffffffffffa6, 0x3ff0000000000000, 0x3ff000000000002d],
        " 0.1000000000000E+001",
    ),
    (
        "ladder 1e-15",
        [0x3feffffffffffff7, 0x3ff0000000000000, 0x3ff0000000000005],
        " 0.10000000000000E+001",
    ),
    (
        "ladder 1e-16",
        [0x3fefffffffffffff, 0x3ff0000000000000, 0x3ff0000000000000],
        " 0.100000000000000E+001",
    ),
    (
        "rump(10864,18817)",
        [0xc02c000000000000, 0x4000000000000000, 0xc02c000000000000],
        " @.0",
    ),
    (
        "rump(1/3,2/3)",
        [0x3fe9add3c0ca458b, 0x3fe9add3c0ca4588, 0x3fe9add3c0ca4589],
        " 0.802469135802469E+000",
    ),
    (
        "exact zero",
        [0x0000000000000000, 0x0000000000000000, 0x0000000000000000],
        " 0.000000000000000E+000",
    ),
    (
        "exact -0",
        [0x8000000000000000, 0x8000000000000000, 0x8000000000000000],
        " 0.000000000000000E+000",
    ),
    (
        "zeros of both signs",
        [0x0000000000000000, 0x8000000000000000, 0x0000000000000000],
        " 0.000000000000000E+000",
    ),
    (
        "noise summing to 0",
        [0x3c670ef54646d497, 0xbc770ef54646d497, 0x3c670ef54646d497],
        " @.0",
    ),
    (
        "noise",
        [0x3c670ef54646d497, 0xbc814b37f4b51f71, 0x3c870ef54646d497],
        " @.0",
    ),
    (
        "negative noise",
        [0xbc670ef54646d497, 0xbc814b37f4b51f71, 0xbc870ef54646d497],
        " @.0",
    ),
    (
        "123.456 exact",
        [0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77, 0x405edd2f1a9fbe77],
        " 0.123456000000000E+003",
    ),
    (
        "1e-300 exact",
        [0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359, 0x01a56e1fc2f8f359],
        " 0.100000000000000E-299",
    ),
    (
        "1e300 exact",
        [0x7e37e43c8800759c, 0x7e37e43c8800759c, 0x7e37e43c8800759c],
        " 0.100000000000000E+301",
    ),
    (
        "-1e300 exact",
        [0xfe37e43c8800759c, 0xfe37e43c8800759c, 0xfe37e43c8800759c],
        "-0.100000000000000E+301",
    ),
    (
        "1/3 exact",
        [0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555555],
        " 0.333333333333333E+000",
    ),
    (
        "-7 exact",
        [0xc01c000000000000, 0xc01c000000000000, 0xc01c000000000000],
        "-0.700000000000000E+001",
    ),
    (
        "1 exact",
        [0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000000],
        " 0.100000000000000E+001",
    ),
    (
        "0.1 exact",
        [0x3fb999999999999a, 0x3fb999999999999a, 0x3fb999999999999a],
        " 0.100000000000000E+000",
    ),
    (
        "nextdown(1)",
        [0x3fefffffffffffff, 0x3fefffffffffffff, 0x3fefffffffffffff],
        " 0.100000000000000E+001",
    ),
    (
        "nextdown(1000)",
        [0x408f3fffffffffff, 0x408f3fffffffffff, 0x408f3fffffffffff],
        " 0.100000000000000E+004",
    ),
    (
        "5e307",
        [0x7fd1ccf385ebc8a0, 0x7fd1ccf385ebc8a0, 0x7fd1ccf385ebc8a0],
        " 0.499999999999999E+308",
    ),
    (
        "1e308 (sum overflows)",
        [0x7fe1ccf385ebc8a0, 0x7fe1ccf385ebc8a0, 0x7fe1ccf385ebc8a0],
        " @.0",
    ),
    (
        "max",
        [0x7fefffffffffffff, 0x7fefffffffffffff, 0x7fefffffffffffff],
        " @.0",
    ),
    (
        "min positive normal",
        [0x0010000000000000, 0x0010000000000000, 0x0010000000000000],
        " 0.222507385850720E-307",
    ),
    (
        "1e-310 subnormal",
        [0x000012688b70e62b, 0x000012688b70e62b, 0x000012688b70e62b],
        " @.0",
    ),
    (
        "NaN",
        [0x7ff8000000000000, 0x7ff8000000000000, 0x7ff8000000000000],
        " @.0",
    ),
    (
        "inf",
        [0x7ff0000000000000, 0x7ff0000000000000, 0x7ff0000000000000],
        " @.0",
    ),
    (
        "-inf",
        [0xfff0000000000000, 0xfff0000000000000, 0xfff0000000000000],
        " @.0",
    ),
    (
        "1,NaN,1",
        [0x3ff0000000000000, 0x7ff8000000000000, 0x3ff0000000000000],
        " @.0",
    ),
    (
        "1,inf,1",
        [0x3ff0000000000000, 0x7ff0000000000000, 0x3ff0000000000000],
        " @.0",
    ),
    (
        "inf,-inf,inf",
        [0x7ff0000000000000, 0xfff0000000000000, 0x7ff0000000000000],
        " @.0",
    ),
    (
        "C=0.60 (0.9,1,1.1)",
        [0x3feccccccccccccd, 0x3ff0000000000000, 0x3ff199999999999a],
        " @.0",
    ),
    (
        "C<0.5 (0.8,1,1.2)",
        [0x3fe999999999999a, 0x3ff0000000000000, 0x3ff3333333333333],
        " @.0",
    ),
    (
        "(1,1,1+ulp)",
        [0x3ff0000000000000, 0x3ff0000000000000, 0x3ff0000000000001],
        " 0.100000000000000E+001",
    ),
];

/// The same for `float_st`.
pub(super) const CADNA_F32: &[(&str, [u32; 3], &str)] = &[
    (
        "123.456f 7 digits",
        [0x42f6e979, 0x42f6e979, 0x42f6e979],
        " 0.1234560E+003",
    ),
    (
        "-123.456f 7 digits",
        [0xc2f6e979, 0xc2f6e979, 0xc2f6e979],
        "-0.1234560E+003",
    ),
    (
        "1e-30f 7 digits",
        [0x0da24260, 0x0da24260, 0x0da24260],
        " 0.1000000E-029",
    ),
    (
        "1e30f 7 digits",
        [0x7149f2ca, 0x7149f2ca, 0x7149f2ca],
        " 0.1000000E+031",
    ),
    (
        "123.456f 5 digits",
        [0x42f6e959, 0x42f6e979, 0x42f6e999],
        " 0.12345E+003",
    ),
    (
        "-123.456f 5 digits",
        [0xc2f6e959, 0xc2f6e979, 0xc2f6e999],
        "-0.12345E+003",
    ),
    (
        "1e-30f 5 digits",
        [0x0da2424b, 0x0da24260, 0x0da24275],
        " 0.10000E-029",
    ),
    (
        "1e30f 5 digits",
        [0x7149f2b0, 0x7149f2ca, 0x7149f2e4],
        " 0.10000E+031",
    ),
    (
        "123.456f 3 digits",
        [0x42f6dcd5, 0x42f6e979, 0x42f6f61d],
        " 0.123E+003",
    ),
    (
        "-123.456f 3 digits",
        [0xc2f6dcd5, 0xc2f6e979, 0xc2f6f61d],
        "-0.123E+003",
    ),
    (
        "1e-30f 3 digits",
        [0x0da23a11, 0x0da24260, 0x0da24aaf],
        " 0.100E-029",
    ),
    (
        "1e30f 3 digits",
        [0x7149e873, 0x7149f2ca, 0x7149fd21],
        " 0.100E+031",
    ),
    (
        "123.456f 1 digits",
        [0x42f1f948, 0x42f6e979, 0x42fbd9aa],
        " 0.1E+003",
    ),
    (
        "-123.456f 1 digits",
        [0xc2f1f948, 0xc2f6e979, 0xc2fbd9aa],
        "-0.1E+003",
    ),
    (
        "1e-30f 1 digits",
        [0x0d9f039c, 0x0da24260, 0x0da58124],
        " 0.1E-029",
    ),
    (
        "1e30f 1 digits",
        [0x7145e8d0, 0x7149f2ca, 0x714dfcc4],
        " 0.1E+031",
    ),
    (
        "ladder f32 1e-1",
        [0x3f666666, 0x3f800000, 0x3f8ccccd],
        " @.0",
    ),
    (
        "ladder f32 1e-2",
        [0x3f7d70a4, 0x3f800000, 0x3f8147ae],
        " 0.1E+001",
    ),
    (
        "ladder f32 1e-3",
        [0x3f7fbe77, 0x3f800000, 0x3f8020c5],
        " 0.10E+001",
    ),
    (
        "ladder f32 1e-4",
        [0x3f7ff972, 0x3f800000, 0x3f800347],
        " 0.100E+001",
    ),
    (
        "ladder f32 1e-5",
        [0x3f7fff58, 0x3f800000, 0x3f800054],
        " 0.1000E+001",
    ),
    (
        "ladder f32 1e-6",
        [0x3f7fffef, 0x3f800000, 0x3f800008],
        " 0.10000E+001",
    ),
    (
        "ladder f32 1e-7",
        [0x3f7ffffe, 0x3f800000, 0x3f800001],
        " 0.100000E+001",
    ),
    (
        "ladder f32 1e-8",
        [0x3f800000, 0x3f800000, 0x3f800000],
        " 0.1000000E+001",
    ),
    (
        "f32 exact zero",
        [0x00000000, 0x00000000, 0x00000000],
        " 0.0000000E+000",
    ),
    ("f32 noise", [0x322bcc77, 0xb300d959, 0x332bcc77], " @.0"),
    ("f32 NaN", [0x7fc00000, 0x7fc00000, 0x7fc00000], " @.0"),
    ("f32 inf", [0x7f800000, 0x7f800000, 0x7f800000], " @.0"),
    ("f32 -inf", [0xff800000, 0xff800000, 0xff800000], " @.0"),
    (
        "f32 -7 exact",
        [0xc0e00000, 0xc0e00000, 0xc0e00000],
        "-0.6999999E+001",
    ),
    (
        "f32 1/3 exact",
        [0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab],
        " 0.3333333E+000",
    ),
    (
        "f32 pi exact",
        [0x40490fdb, 0x40490fdb, 0x40490fdb],
        " 0.3141592E+001",
    ),
    ("f32 max", [0x7f7fffff, 0x7f7fffff, 0x7f7fffff], " @.0"),
    (
        "f32 denorm min",
        [0x00000001, 0x00000001, 0x00000001],
        " 0.0000000E+000",
    ),
    (
        "f32 1e-40 subnormal",
        [0x000116c2, 0x000116c2, 0x000116c2],
        " 0.9999805E-040",
    ),
    (
        "f32 123.456 exact",
        [0x42f6e979, 0x42f6e979, 0x42f6e979],
        " 0.1234560E+003",
    ),
    (
        "f32 0.1 exact",
        [0x3dcccccd, 0x3dcccccd, 0x3dcccccd],
        " 0.1000000E+000",
    ),
];

/// Random triplets (magnitudes 1e-307..1e307 and 1e-37..1e38, spreads from identical to
/// 1e0, both signs) and values near powers of ten: `D|F x y z` (sample bits in hex), then
/// CADNA's output. Five per (type, CADNA digit count), drawn from 40 000 checked triplets.
pub(super) const CADNA_RANDOM: &str = "\
D c473427e30d1c4ed c4767ac9c1936978 c47549561fd0c48b  @.0
D 41778cac91b02ef6 417157cae4fb10d1 4177ba0f256f3746  @.0
D baaeedd9261d7e65 bab17275abe113c6 bab425c72d20ed8a  @.0
D 426cd679d7aace13 4262ec677b4e692e 42648230179efad4  @.0
D c445eb8552c99744 c444d0a87d734b03 c440ce3ac00563da  @.0
D 444a9773f00e69da 444b054c27cf57bf 44493c3c8f41d17e  0.9E+021
D 3de4cc277ca70238 3de56afdb843b019 3de4ccf460c649ac  0.1E-009
D 418759d59a75b8ef 41855adda7276e95 41870dc3c3049730  0.4E+008
D 61cc8dc4c43bb7cb 61cd3ce639c23ef5 61cdc99921fa48d1  0.1E+164
D c1b2823beb9d73f5 c1b3191cfc8827f5 c1b18b1a3bcecac3 -0.3E+009
D 3c9bee05ae86a750 3c9be5e38251a2b4 3c9bccec208fe798  0.96E-016
D 3c31eea111f05ebf 3c31f1b255945050 3c31e01f2a4d08f7  0.97E-018
D c5e02e42768dd3e1 c5e0513f295744fe c5e043a2fc01dab4 -0.40E+029
D 0ef383b964eefabf 0ef37b38500417ed 0ef37887e0410b57  0.11E-235
D 42c3c50b35f29cad 42c3c25432dadc98 42c3cc518644a89a  0.43E+014
D c2f383534cd2a9d0 c2f3810d72e31b4b c2f38220e427cf87 -0.343E+015
D 435dbb03b4c3cabf 435dbeaa359889e5 435dbac5ebb2f7d5  0.334E+017
D 5f23575e1b041be1 5f235801d5b8f6b2 5f235721a416f539  0.197E+151
D 3e0720f9d5e8771e 3e07205e3cc63665 3e071f7b422a438c  0.673E-009
D 3fe379b0de0994f1 3fe37915e6588fa8 3fe378e219b2028d  0.608E+000
D 3e6a76a1d26094da 3e6a76d81bf11fc4 3e6a76ba4bd69f78  0.4929E-007
D 683d5a9b66c5494f 683d5a4732ec9e44 683d5a7836f822b3  0.1339E+195
D 3de236f2ffe7ef19 3de236f70557ddb0 3de236e16c23fdc1  0.1325E-009
D c5bf226b5198afc9 c5bf227707decef8 c5bf22a521a7a53c -0.9635E+028
D c101dfd4588789bd c101dfedeced2dc3 c101dfc05579fb15 -0.1464E+006
D 617f9ae59b62cdc9 617f9ae71f6d5dcf 617f9ae9c9a367d1  0.44433E+162
D be073e6d92dc3c71 be073e7256ea040a be073e729c25f5c7 -0.67648E-009
D cdfa0b53cc4267c9 cdfa0b5a164bfd85 cdfa0b57310747db -0.43884E+068
D 5fa42d5c07098a5e 5fa42d59c4cf6b1a 5fa42d55a7352cb3  0.52838E+153
D 3cc843040b226e0e 3cc843089adb979a 3cc8430730030597  0.67340E-015
D 40cebdd9b9db2ef8 40cebddaa5c6bd2d 40cebdda9064d4fc  0.157397E+005
D 3a5331da9600eef4 3a5331dc0007d42a 3a5331daf59922f8  0.969087E-027
D 3d66292194d4da1f 3d662920e832bac4 3d66292175bfbfca  0.629843E-012
D f74ed569d2f037ab f74ed569ff73c7bc f74ed56a18edfa42 -0.497108E+267
D 50b4f0cdf83c5e60 50b4f0ce805b1aeb 50b4f0cdb40d1bdb  0.620738E+081
D 3f79a9b00f8d2f91 3f79a9b01f8e8070 3f79a9b02136ac85  0.6265342E-002
D a62c628eb92bc843 a62c628eaf71444f a62c628eb0d6710a -0.8386496E-124
D 7bda273e5dd40fcb 7bda273e64b48f09 7bda273e5ca3ad87  0.3982376E+289
D bcc17b4cafc8e5de bcc17b4cb15b1a14 bcc17b4cb67f0db9 -0.4852129E-015
D be3f9117a043159e be3f9117990df49d be3f9117a15a9fcd -0.7349710E-008
D 4740714922f10275 47407149215a77f3 4740714921247b6c  0.17074891E+036
D c473094f9cd7a32d c473094f9b659ced c473094f9c023330 -0.56185450E+022
D c52506b58871fc16 c52506b589f2eabb c52506b58b3529e7 -0.12709562E+026
D 3e2bf34127d57b1f 3e2bf3412854c6c8 3e2bf341273e4b05  0.32538330E-008
D ba79c4243e41e988 ba79c4244367bec0 ba79c4243d66b690 -0.52034382E-026
D 43415534ca2a0831 43415534ca265711 43415534ca5d531d  0.975751964E+016
D 4154a145b84debfc 4154a145b823ae27 4154a145b8641cc8  0.540802287E+007
D 3a17ddd4ba710d85 3a17ddd4ba150257 3a17ddd4ba984d87  0.753094810E-028
D c3a848c8f2eeb2fb c3a848c8f2c3d099 c3a848c8f3020fc7 -0.874934700E+018
D 41444f009ed08be3 41444f009ebdb8c4 41444f009ec0f4a4  0.266188924E+007
D c1cda92a50e41b02 c1cda92a50db827f c1cda92a50e3c0fd -0.9952513617E+009
D 42569ca959417c84 42569ca959414873 42569ca959440b7a  0.3884704985E+012
D c41ecb51ddb9e18a c41ecb51ddb8af62 c41ecb51ddb25b5f -0.1420132642E+021
D c054a7cbec96dcdb c054a7cbec943325 c054a7cbec9602a2 -0.8262182154E+002
D 689d4ac9cf9c4d5c 689d4ac9cf9555fb 689d4ac9cf985e3a  0.8553194107E+196
D 6bf1929b3a60930e 6bf1929b3a600995 6bf1929b3a608a9f  0.92434690697E+212
D 45443260e391f152 45443260e392194b 45443260e391f957  0.48832844004E+026
D 3161c8b01a5f4dbf 3161c8b01a5f373a 3161c8b01a5eb11a  0.80522813652E-070
D 40810681a9a3720d 40810681a9a42e35 40810681a9a482e6  0.54481331184E+003
D ba1d65fd749e7f52 ba1d65fd749e18f3 ba1d65fd749e7ce1 -0.92764989562E-028
D 3b20de64cd7a90ed 3b20de64cd7a8edd 3b20de64cd7a921a  0.697674139831E-023
D c22ebc08793f2d40 c22ebc08793f2470 c22ebc08793f2c26 -0.660018454075E+011
D 16fa6f5c2025b430 16fa6f5c2025b441 16fa6f5c2025afbb  0.552563466927E-197
D 4306f36f9636d3db 4306f36f9636b427 4306f36f9636c115  0.807513759340E+015
D 3b31f4c7ed9eea7b 3b31f4c7ed9ee8d7 3b31f4c7ed9eee90  0.148530003834E-022
D 4308d82de3be7024 4308d82de3be7032 4308d82de3be6ef9  0.8741363808865E+015
D ba4c586d9ede587a ba4c586d9ede58a5 ba4c586d9ede5771 -0.7155390653470E-027
D bac70a88c2e862e3 bac70a88c2e86213 bac70a88c2e8625f -0.1488999375189E-024
D 4444957dc0e9c217 4444957dc0e9c191 4444957dc0e9c25a  0.7594137189362E+021
D 439e267e21e638b2 439e267e21e63a35 439e267e21e63a31  0.5431406385786E+018
D 08a6c423d58512bc 08a6c423d58512cd 08a6c423d58512af  0.55159949926750E-266
D 41f0ee33bf696d80 41f0ee33bf696d84 41f0ee33bf696d7d  0.45447403425892E+010
D bbc073533a41b035 bbc073533a41b043 bbc073533a41b038 -0.69670529644532E-020
D 4433f48f1d8f4fa3 4433f48f1d8f4fad 4433f48f1d8f4fa4  0.36811047376875E+021
D 436c377cdf3c081d 436c377cdf3c07dc 436c377cdf3c07a7  0.63538470468992E+017
D 596620f07835ccd7 596620f07835ccd7 596620f07835ccd7  0.457134028289571E+123
D 792b0ffff94fafcb 792b0ffff94fafcb 792b0ffff94fafcb  0.468483130597015E+276
D 3f497751815c70ee 3f497751815c70ee 3f497751815c70ee  0.777163312452281E-003
D 40728ed3ca1785ea 40728ed3ca1785ea 40728ed3ca1785ea  0.296926706401717E+003
D c4c3fbadc393ea27 c4c3fbadc393ea26 c4c3fbadc393ea27 -0.188735233902094E+024
F 37ddc2c4 37a2313e 3815a110  @.0
F 300b87f6 30a05122 30a11d2f  @.0
F 3bf0ff10 3bb8eab5 3bdda7c5  @.0
F 4831f48f 48244c7d 483e4bd8  @.0
F 1a0abcb9 1b0fa794 1afc71a2  @.0
F 3514e616 351174dc 3514dd1d  0.5E-006
F 3b4d13c0 3b489f61 3b42aae1  0.3E-002
F bc104b88 bc0ff8f9 bc126e3b -0.8E-002
F 0f32a42a 0f2ebd9e 0f2b3e17  0.8E-029
F 4aeaa889 4af1c619 4aeda001  0.7E+007
F 31fd35a0 31fcbd92 31fde86c  0.73E-008
F 41192200 4119c81e 411b4999  0.96E+001
F 34825a4e 348297bd 3482a6e9  0.24E-006
F 3c10c6f1 3c10cdaa 3c10905c  0.88E-002
F 3a6e60cd 3a6c7a49 3a6d5926  0.90E-003
F 3a01e713 3a01e909 3a01d27b  0.495E-003
F 3865d8d7 3865da5a 3865e2f5  0.548E-004
F 18becdb0 18beb5e0 18beb9e0  0.493E-023
F 56b694b0 56b692e7 56b6897d  0.100E+015
F d0141eb1 d014218a d0142b56 -0.994E+010
F c44ab66f c44abaa0 c44ab7ad -0.8108E+003
F 8b8a8f4b 8b8a9040 8b8a8eed -0.5337E-031
F 4e25c23e 4e25c6cd 4e25c486  0.6952E+009
F 1168312f 11683124 11682f62  0.1831E-027
F 3dc65745 3dc6588c 3dc658f4  0.9684E-001
F 43b0db74 43b0db7c 43b0dbd3  0.35371E+003
F 3d1eac42 3d1eacbd 3d1eac74  0.38738E-001
F 4288bec6 4288bed0 4288bebe  0.68372E+002
F 4ba29529 4ba29569 4ba29563  0.21310E+008
F c9541615 c9541623 c9541635 -0.86870E+006
F 32dc7e71 32dc7e73 32dc7e7d  0.256688E-007
F ccb3c21c ccb3c22d ccb3c225 -0.942451E+008
F 3713e719 3713e717 3713e71b  0.881568E-005
F 3288c1be 3288c1bd 3288c1be  0.159205E-007
F 4f822bf4 4f822bf9 4f822bf8  0.436783E+010
F 49158efe 49158efe 49158efe  0.6125918E+006
F 360e6cc9 360e6cc9 360e6cc9  0.2122296E-005
F 0a11a25e 0a11a25e 0a11a25e  0.7012034E-032
F d1420fee d1420fee d1420fee -0.5209318E+011
F bbab279d bbab279d bbab279d -0.5223228E-002
F 6fa18f08 6fa18f08 6fa18f08  0.1000000E+030
F 14461206 14461206 14461206  0.1000000E-025
F 4cbebc21 4cbebc21 4cbebc21  0.1000000E+009
F 3727c5ab 3727c5ab 3727c5ab  0.9999998E-005
D 0bd25432b14ecea4 0bd25432b14ecea4 0bd25432b14ecea4  0.100000000000000E-250
F 77f684de 77f684de 77f684de  0.9999999E+034
F 3c23d70a 3c23d70a 3c23d70a  0.1000000E-001
D 547d42aea2879f2d 547d42aea2879f2d 547d42aea2879f2d  0.100000000000000E+100
F 40000000 40000000 40000000  0.2000000E+001
D 3a53ce9a36f23c11 3a53ce9a36f23c11 3a53ce9a36f23c11  0.100000000000000E-026
F c0124925 c0124925 c0124925 -0.2285714E+001
D 1eb67e9c127b6e74 1eb67e9c127b6e74 1eb67e9c127b6e74  0.100000000000000E-159
D 6d3221563a9b7322 6d3221563a9b7322 6d3221563a9b7322  0.100000000000000E+219
F 15f79688 15f79688 15f79688  0.1000000E-024
D 4197d78400000000 4197d78400000000 4197d78400000000  0.100000000000000E+009
D 7bba44df832b8d45 7bba44df832b8d45 7bba44df832b8d45  0.100000000000000E+289
F 5368d4a6 5368d4a6 5368d4a6  0.1000000E+013
F 501502f8 501502f8 501502f8  0.9999998E+010
D c001249249249249 c001249249249249 c001249249249249 -0.214285714285714E+001
D 28e33d4032c2c7f4 28e33d4032c2c7f4 28e33d4032c2c7f4  0.999999999999999E-111
D 53088ba3bf284e25 53088ba3bf284e25 53088ba3bf284e25  0.100000000000000E+093
F 7149f2ca 7149f2ca 7149f2ca  0.1000000E+031
F 56b5e621 56b5e621 56b5e621  0.1000000E+015
D bff0000000000000 bff0000000000000 bff0000000000000 -0.100000000000000E+001
F 0f4ad2f9 0f4ad2f9 0f4ad2f9  0.1000000E-028
D 4480f0cf064dd593 4480f0cf064dd593 4480f0cf064dd593  0.100000000000000E+023
F 65a96817 65a96817 65a96817  0.1000000E+024
F bf800000 bf800000 bf800000 -0.1000000E+001
F 10fd87b6 10fd87b6 10fd87b6  0.1000000E-027
F 5d5e0b6c 5d5e0b6c 5d5e0b6c  0.1000000E+019
F 3dcccccc 3dcccccc 3dcccccc  0.9999999E-001
F 49742401 49742401 49742401  0.1000000E+007
D 73024e8d737c5f0c 73024e8d737c5f0c 73024e8d737c5f0c  0.100000000000000E+247
D 4bc4643e5ae44d12 4bc4643e5ae44d12 4bc4643e5ae44d12  0.100000000000000E+058
D 2a56ef5b40c2fc77 2a56ef5b40c2fc77 2a56ef5b40c2fc77  0.999999999999999E-104
D 58d8c8dac6a0342a 58d8c8dac6a0342a 58d8c8dac6a0342a  0.100000000000000E+121
D 7475d2ce55747a18 7475d2ce55747a18 7475d2ce55747a18  0.100000000000000E+254
D 7475d2ce55747a17 7475d2ce55747a17 7475d2ce55747a17  0.100000000000000E+254
D 0775a391d56bdc87 0775a391d56bdc87 0775a391d56bdc87  0.100000000000000E-271
D c004924924924925 c004924924924925 c004924924924925 -0.257142857142857E+001
";
