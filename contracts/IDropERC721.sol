// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

/// @title Mintyard drop: the surface the service and the factory program against.
/// @dev Decision record: docs/contracts.md.
interface IDropERC721 {
    /// Standard: a normal ERC-721. Badge: soulbound (no transfers or approvals; mint and burn work).
    enum Mode {
        Standard,
        Badge
    }

    /// Everything a drop needs at creation. `name`, `symbol`, `baseURI`, `mode` and
    /// `provenanceHash` are baked into the clone's code by the factory (cheaper than storage);
    /// the rest goes to storage in `initialize`.
    struct InitParams {
        address owner; // settings, withdrawals; also what marketplaces show as the collection owner
        address minter; // the project wallet: the only caller of mintTo
        string name;
        string symbol;
        string baseURI; // tokenURI = baseURI + decimal id
        Mode mode;
        uint40 maxSupply; // cap on tokens ever minted; 0 = unlimited
        uint96 unitPrice; // public claim price per token, in `currency`
        address currency; // address(0) = native currency, else an ERC-20
        uint40 startTime; // unix seconds; claims revert before it
        uint32 limitPerWallet; // public claims per recipient, lifetime; 0 = unlimited
        bytes32 merkleRoot; // non-zero = allowlist-only claims
        address royaltyRecipient;
        uint16 royaltyBps; // <= 10_000
        bytes32 provenanceHash; // keccak256 of the 32-byte blind-box key; 0 = no blind box
    }

    /// The owner-settable claim conditions, as one unit.
    struct ClaimConditions {
        uint96 unitPrice;
        address currency;
        uint40 startTime;
        uint32 limitPerWallet;
        uint40 maxSupply;
        bytes32 merkleRoot;
    }

    event TokensClaimed(
        address indexed claimer, address indexed to, uint256 firstTokenId, uint256 quantity, uint256 totalPrice
    );
    event ClaimConditionsUpdated(
        uint256 unitPrice,
        address currency,
        uint256 startTime,
        uint256 limitPerWallet,
        uint256 maxSupply,
        bytes32 merkleRoot
    );
    event BaseURIUpdated(string baseURI);
    event RoyaltyUpdated(address recipient, uint256 bps);
    event MinterUpdated(address indexed previousMinter, address indexed newMinter);
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);
    event Withdrawn(address indexed currency, address indexed to, uint256 amount);
    /// The blind-box key, published by `reveal`; keccak256(abi.encodePacked(key)) == provenanceHash().
    event Revealed(bytes32 key);

    error AlreadyInitialized();
    error NotOwner(address caller);
    error NotMinter(address caller);
    error InvalidOwner(address owner);
    error InvalidQuantity();
    error ClaimNotStarted(uint256 startTime);
    error WalletLimitExceeded(uint256 limit, uint256 alreadyClaimed);
    error MaxSupplyExceeded(uint256 maxSupply);
    error MaxSupplyBelowMinted(uint256 minted);
    error InvalidProof();
    error IncorrectPayment(uint256 expected, uint256 paid);
    error RoyaltyTooHigh(uint256 bps);
    error Soulbound();
    error NativeTransferFailed();
    error LengthMismatch(uint256 recipients, uint256 quantities);
    error EmptyBatch();
    error InvalidTokenRange(uint256 fromTokenId, uint256 toTokenId);
    error NoProvenanceHash();
    error InvalidRevealKey();
    error AlreadyRevealed();

    function initialize(InitParams calldata params) external;

    function mintTo(address to, uint256 quantity) external returns (uint256 firstTokenId);

    function mintToMany(address[] calldata to, uint256[] calldata quantities) external returns (uint256 firstTokenId);

    function claim(
        address to,
        uint256 quantity,
        bytes32[] calldata proof,
        uint256 allowedQuantity,
        uint256 allowedPrice
    ) external payable returns (uint256 firstTokenId);

    function announceMetadataUpdate(uint256 fromTokenId, uint256 toTokenId) external;

    function reveal(bytes32 key) external;
}
